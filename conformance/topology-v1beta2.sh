#!/usr/bin/env bash
# Conformance of `capi-render render` on cluster.x-k8s.io/v1beta2 topologies with Cluster
# API's own desired-state code (exp/topology/desiredstate of sigs.k8s.io/cluster-api
# v1.14.2, the version whose semantics render follows for v1beta2), run by the oracle
# conformance/oracle/v1beta2/cmd/desiredstateref (see its header for what it runs).
#
#   conformance/topology-v1beta2.sh              regenerate the goldens into a scratch
#                       directory, fail if a committed one differs (after normalisation),
#                       then compare capi-render with the goldens
#   conformance/topology-v1beta2.sh update       rewrite golden/topology-v1beta2/<case>/
#                       from the oracle (only where more than the random suffixes changed)
#   conformance/topology-v1beta2.sh differences  rewrite conformance/topology-v1beta2/
#                       differences/<case>.diff from the comparison (review them, and
#                       explain each in differences.md)
#
# Cases: conformance/topology-v1beta2/cases.txt. Golden: golden/topology-v1beta2/<case>/
# desired.yaml, the oracle's output as it printed it.
# Comparison normalises exactly two things, both legitimately random or arbitrary:
#   - the 5-character random suffixes of generated names (`-[bcdfghjklmnpqrstvwxz2456789]{5}`,
#     Kubernetes' random-string alphabet, the one CAPI's `{{ .random }}` uses) -> `-XXXXX`;
#   - the order of the YAML documents (each tool writes its own stable order; the
#     oracle's sorts by generated names): the documents are compared sorted.
# Known differences: a case's differences/<case>.diff is the exact normalised diff
# (golden -> capi-render) that is expected; differences.md says why for each. A listed
# difference that disappears, or an unlisted one that appears, fails the check; so does a
# .diff file without its case or without a section in differences.md.
# The oracle is built once per source hash, outside the checkout, in
# ${XDG_CACHE_HOME:-~/.cache}/capi-render/oracle-v1beta2/ (a cold build of CAPI v1.14.2
# takes a few minutes on 2 cores).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
mode=${1:-check}
CAPI_CORPUS=${CAPI_CORPUS:-$root/../shared/corpus}
CAPI_CORPUS=$(cd "$CAPI_CORPUS" && pwd)
cases_file="$here/topology-v1beta2/cases.txt"
diffs_dir="$here/topology-v1beta2/differences"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --- tools ----------------------------------------------------------------------------
oracle=$("$here/oracle-v1beta2.sh")
# The oracle admits each input first, as the API server and Cluster API would (the v1.14.2
# Cluster and ClusterClass CRDs, field validation Strict, the webhooks): a case Cluster API
# refuses fails here (refusals are conformance/admission.sh's cases).
crds="$root/src/admission/crds-v1.14.2.yaml"
(cd "$root" && cargo build --release --quiet)
capi="${CARGO_TARGET_DIR:-$root/target}/release/capi-render"

norm() { # file -> normalised text (suffixes, document order)
  sed -E 's/-[bcdfghjklmnpqrstvwxz2456789]{5}([^a-z0-9]|$)/-XXXXX\1/g' "$1" | python3 -c '
import sys
docs = [d.strip("\n") for d in ("\n" + sys.stdin.read()).split("\n---\n")]
print("\n---\n".join(sorted(d for d in docs if d)))' 2>/dev/null
}

inputs() { # "path..." -> input paths, corpus files in a scratch copy with their defaults
  local c=$1 p n=0; shift
  for p in "$@"; do
    n=$((n + 1))
    case "$p" in
      corpus:*)
        mkdir -p "$work/in/$c"
        sed -E 's/\$\{[A-Z_]+:-([^}]*)\}/\1/g' "$CAPI_CORPUS/${p#corpus:}" >"$work/in/$c/$n-$(basename "$p")"
        echo "$work/in/$c/$n-$(basename "$p")";;
      *) echo "$root/$p";;
    esac
  done
}

status=0; cases=0; ndiff=0; names=()
while IFS='|' read -r name files flags; do
  name=$(echo "$name" | xargs)
  [ -z "$name" ] && continue; case "$name" in \#*) continue;; esac
  names+=("$name"); cases=$((cases + 1))
  read -r -a fl <<<"$files"
  read -r -a cflags <<<"${flags:-}"
  args=()
  while read -r f; do args+=(-f "$f"); done < <(inputs "$name" "${fl[@]}")
  mkdir -p "$work/go/$name"
  if ! "$oracle" --crds "$crds" ${cflags[@]+"${cflags[@]}"} "${args[@]}" >"$work/go/$name/desired.yaml" 2>"$work/go/$name.err"; then
    echo "FAIL $name: the oracle failed:"; cat "$work/go/$name.err"; status=1; continue
  fi
  gold="$root/golden/topology-v1beta2/$name/desired.yaml"
  if [ "$mode" = update ]; then
    # Only a change beyond the random suffixes rewrites a golden (no churn).
    if [ ! -f "$gold" ] || ! cmp -s <(norm "$gold") <(norm "$work/go/$name/desired.yaml"); then
      mkdir -p "$(dirname "$gold")"; cp "$work/go/$name/desired.yaml" "$gold"; echo "updated golden/topology-v1beta2/$name"
    fi
    continue
  fi
  if [ ! -f "$gold" ]; then echo "MISSING golden/topology-v1beta2/$name"; status=1; continue; fi
  if ! cmp -s <(norm "$gold") <(norm "$work/go/$name/desired.yaml"); then
    echo "STALE golden/topology-v1beta2/$name (the oracle's output changed)"; status=1
  fi
  set +e
  env -i PATH="$PATH" "$capi" render --stdout -q --clusters desired ${cflags[@]+"${cflags[@]}"} "${args[@]}" >"$work/ours.yaml" 2>"$work/ours.err"
  rc=$?
  set -e
  if [ $rc -ne 0 ]; then { echo "capi-render: exit $rc"; sed "s#$root/##g; s#$work/in/$name/##g" "$work/ours.err"; } >"$work/ours.yaml"; fi
  diff -u --label "oracle/$name" --label "capi-render/$name" <(norm "$gold") <(norm "$work/ours.yaml") >"$work/actual.diff" || true
  expected="$diffs_dir/$name.diff"
  if [ "$mode" = differences ]; then
    mkdir -p "$diffs_dir"
    if [ -s "$work/actual.diff" ]; then cp "$work/actual.diff" "$expected"; else rm -f "$expected"; fi
    continue
  fi
  if [ -s "$work/actual.diff" ]; then ndiff=$((ndiff + $(grep -c '^[-+][^-+]' "$work/actual.diff"))); fi
  if [ -f "$expected" ]; then
    if cmp -s "$expected" "$work/actual.diff"; then
      echo "ok   $name (listed differences: $(grep -c '^[-+][^-+]' "$expected") lines)"
    elif [ ! -s "$work/actual.diff" ]; then
      echo "FAIL $name: the listed differences are gone (remove differences/$name.diff and its entry)"; status=1
    else
      echo "FAIL $name: the differences changed:"; diff "$expected" "$work/actual.diff" | head -40; status=1
    fi
  elif [ -s "$work/actual.diff" ]; then
    echo "DIFF $name (unlisted):"; head -60 "$work/actual.diff"; status=1
  else
    echo "ok   $name"
  fi
done <"$cases_file"
[ "$mode" = update ] && { echo "updated $cases v1beta2 topology cases"; exit "$status"; }
[ "$mode" = differences ] && { echo "wrote the differences of $cases v1beta2 topology cases"; exit "$status"; }

# Every listed difference belongs to a case and is explained in differences.md.
for f in "$diffs_dir"/*.diff; do
  [ -e "$f" ] || continue
  n=$(basename "$f" .diff)
  printf '%s\n' "${names[@]}" | grep -qxF "$n" || { echo "FAIL differences/$n.diff: no such case"; status=1; }
  grep -q "^## .*\`$n\`" "$here/topology-v1beta2/differences.md" || { echo "FAIL differences/$n.diff: no section in differences.md"; status=1; }
done
listed=$( (ls "$diffs_dir"/*.diff 2>/dev/null || true) | wc -l)
echo "topology-v1beta2: $cases cases against CAPI's desiredstate, $listed with listed differences ($ndiff differing lines), unlisted or changed: $([ $status = 0 ] && echo 0 || echo 'see above')"
exit $status
