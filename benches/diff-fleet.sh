#!/usr/bin/env bash
# Pull-request review at fleet scale (issue 41, "Fast on fleets"): `diff --base` with the
# rollout impact over a fleet of N topology Clusters (benches/fleet-gen.sh) in a Git
# repository, whole process, wall time and peak RSS from /usr/bin/time. One line per
# (N, workload):
#   render stdout   render --stdout --clusters desired of the fleet (the yardstick)
#   class change    diff --base HEAD~1 after a ClusterClass change that rolls every
#                   Cluster (the workers' DockerMachineTemplate gains a second extraMount):
#                   the target is at most 3 x `render stdout`
#   one Cluster     diff --base HEAD~1 after one Cluster's Kubernetes version bump: the
#                   target is at most 1.5 s
#   no change       diff --base HEAD (nothing differs)
# The ratio column is against `render stdout`.
# Usage: benches/diff-fleet.sh [N...]  (default 1000 10000; FLEET_RUNS runs each,
#   median; FLEET_DIR for the scratch repository, e.g. /dev/shm; FLEET_BIN the binary)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/.." && pwd)
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000)
runs=${FLEET_RUNS:-3}
capi=${FLEET_BIN:-$("$root/scripts/build-release.sh")}
work=$(mktemp -d -p "${FLEET_DIR:-${TMPDIR:-/tmp}}"); trap 'rm -rf "$work"' EXIT
measure() { # cmd...  (median wall seconds, max RSS MB; diff exits 1 when something changed)
  local t=() m=0
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null 2>"$work/err" || {
      local rc=$?; [ "$rc" = 1 ] || { cat "$work/err" >&2; exit 1; }
    }
    read -r s k < <(tail -1 "$work/time")
    t+=("$s"); [ "$k" -gt "$m" ] && m=$k
  done
  printf '%s %s\n' "$(printf '%s\n' "${t[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")" "$((m / 1024))"
}
printf '%-8s %-14s %9s %9s %7s\n' clusters workload seconds peak-MB ratio
git_q() { git -C "$repo" -c user.name=bench -c user.email=bench@example.invalid "$@" >/dev/null; }
for n in "${sizes[@]}"; do
  repo="$work/repo-$n"; mkdir -p "$repo"; "$here/fleet-gen.sh" "$n" "$repo/fleet"
  git_q init -q; git_q add -A; git_q commit -q -m fleet
  read -r base _ < <(measure "$capi" render -q --stdout --clusters desired -f "$repo/fleet")
  row() { # name cmd...
    local name=$1; shift
    read -r s mb < <(measure "$@")
    printf '%-8s %-14s %9.2f %9d %7.2f\n' "$n" "$name" "$s" "$mb" "$(echo "$s / $base" | bc -l)"
  }
  printf '%-8s %-14s %9.2f %9s %7.2f\n' "$n" "render stdout" "$base" "-" 1
  (cd "$repo" && row "no change" "$capi" diff -q --base HEAD -f fleet --output-format json)
  # Every Cluster rolls: the workers' machine template changes in every namespace's class.
  for f in "$repo"/fleet/classes/*.yaml; do
    python3 - "$f" <<'PY'
import sys
p = sys.argv[1]
t = open(p).read()
marker = "\n  name: quick-start-default-worker-machinetemplate\nspec:"
mount = '        hostPath: "/var/run/docker.sock"\n'
j = t.index(mount, t.index(marker)) + len(mount)
t = t[:j] + "      - containerPath: /var/bench\n        hostPath: /var/bench\n" + t[j:]
open(p, "w").write(t)
PY
  done
  git_q commit -q -am "class change"
  (cd "$repo" && row "class change" "$capi" diff -q --base HEAD~1 -f fleet --output-format json)
  git_q revert --no-edit HEAD
  sed -i '0,/version: v1.32.0/s//version: v1.32.1/' "$repo/fleet/clusters/c000.yaml"
  git_q commit -q -am "one Cluster"
  (cd "$repo" && row "one Cluster" "$capi" diff -q --base HEAD~1 -f fleet --output-format json)
  rm -rf "$repo"
done
