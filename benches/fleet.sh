#!/usr/bin/env bash
# Fleet benchmark (the fleet-scale issue): `render` over fleets of N topology Clusters of
# the corpus quick-start ClusterClass (benches/fleet-gen.sh), whole process, wall time
# and peak RSS from /usr/bin/time. One line per (N, workload):
#   stdout        render --stdout --clusters desired (every Cluster's desired objects)
#   stdout 1 file the same, the Clusters in one file instead of one per 1,000 (a
#                 generated fleet, a KRM ResourceList): it must cost what the split one costs
#   fresh -o      render -o into an empty directory (the default tree, --clusters managed:
#                 class units, Clusters, the desired objects as review files)
#   no-change -o  render -o again, nothing changed
#   check         render --check on the tree
#   one changed   render -o after one Cluster's replicas changed
# Usage: benches/fleet.sh [N...]   (default: 100 1000 10000; FLEET_RUNS runs each, median;
#   FLEET_DIR: where the fleet and OUT go, default $TMPDIR or /tmp. A fresh tree is mostly
#   the filesystem creating one file per object: FLEET_DIR=/dev/shm (tmpfs) measures
#   capi-render's own cost without the disk's; FLEET_BIN: the binary to measure, default
#   the one scripts/build-release.sh builds, e.g. another commit's for an A/B comparison)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/.." && pwd)
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(100 1000 10000)
runs=${FLEET_RUNS:-3}
# The release binary (static glibc on Linux; scripts/build-release.sh).
capi=${FLEET_BIN:-$("$root/scripts/build-release.sh")}
work=$(mktemp -d -p "${FLEET_DIR:-${TMPDIR:-/tmp}}"); trap 'rm -rf "$work"' EXIT
# median wall seconds and the max RSS (MB) of $runs runs of a command; `prep` (a shell
# snippet) runs before each run, untimed.
measure() { # prep cmd...
  local prep=$1; shift
  local t=() m=0
  for _ in $(seq "$runs"); do
    eval "$prep"
    /usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null 2>"$work/err" || {
      local rc=$?
      # --check exits 1 when out of date; anything else is a failure.
      [ "$rc" = 1 ] && [[ " $* " == *" --check "* ]] || { cat "$work/err" >&2; exit 1; }
    }
    read -r s k < <(tail -1 "$work/time")
    t+=("$s"); [ "$k" -gt "$m" ] && m=$k
  done
  printf '%s %s\n' "$(printf '%s\n' "${t[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")" "$((m / 1024))"
}
printf '%-8s %-14s %9s %9s %12s\n' clusters workload seconds peak-MB "us/cluster"
for n in "${sizes[@]}"; do
  fleet="$work/fleet-$n"; "$here/fleet-gen.sh" "$n" "$fleet"
  out="$work/out-$n"
  row() { # name prep cmd...
    local name=$1; shift
    read -r s mb < <(measure "$@")
    printf '%-8s %-14s %9.2f %9d %12.0f\n' "$n" "$name" "$s" "$mb" "$(echo "$s * 1000000 / $n" | bc -l)"
  }
  row stdout ":" "$capi" render -q --stdout --clusters desired -f "$fleet"
  one="$work/one-$n"; mkdir -p "$one/clusters"; cp -r "$fleet/classes" "$one/"
  cat "$fleet"/clusters/*.yaml >"$one/clusters/all.yaml"
  row "stdout 1 file" ":" "$capi" render -q --stdout --clusters desired -f "$one"
  rm -rf "$one"
  # The deletion of the previous run's tree is flushed before the timed run (untimed):
  # the writer's syncfs would otherwise pay for it.
  row "fresh -o" "rm -rf '$out'; sync" "$capi" render -q -o "$out" -f "$fleet"
  row "no-change -o" ":" "$capi" render -q -o "$out" -f "$fleet"
  row check ":" "$capi" render -q --check -o "$out" -f "$fleet"
  # One Cluster changed (alternating replicas so that every run changes it).
  row "one changed" "sed -i '0,/replicas: \\([0-9]*\\)\$/s//replicas: 1\\1/' '$fleet/clusters/c000.yaml'" \
    "$capi" render -q -o "$out" -f "$fleet"
  rm -rf "$fleet" "$out"
done
