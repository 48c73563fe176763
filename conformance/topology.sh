#!/usr/bin/env bash
# Conformance of `capi-render topology plan` with `clusterctl alpha topology plan` v1.10.10.
#
#   conformance/topology.sh          regenerate the goldens into a scratch directory, fail if a
#                                    committed one differs, then compare capi-render with them
#   conformance/topology.sh update   rewrite golden/topology/<case>/ from clusterctl
#   conformance/topology.sh MODE CASE...   only the named cases (e.g. a new one's golden)
#
# Cases are the directories of fixtures/topology/: their *.yaml files are the inputs, after
# the corpus files a `corpus.txt` lists ($CAPI_CORPUS, default ../shared/corpus); a
# `flags.txt` holds extra flags (`-n NS`, `--cluster NAME`).
# clusterctl runs offline: no kubeconfig (it falls back to the "default" namespace), isolated
# HOME/XDG, version check disabled, in the output directory with `-o .`.
# A case's `differences.txt` (`same-until: MARKER`, then the reason) marks an error whose
# wording differs after MARKER on purpose: the error texts are compared up to it.
# Where clusterctl panics (its dry-run client cannot decode an input object), the panic
# message is the expected error, with Go's dump of the object shortened to
# `Kind namespace/name`; capi-render returns that message as an error (exit 1).
# Comparisons normalise what is random or time-dependent in clusterctl's output: the
# 5-character generated suffixes, condition times, diff header times, the table's row order.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
mode=${1:-check}
only=("${@:2}")
CAPI_CORPUS=${CAPI_CORPUS:-$root/../shared/corpus}
CAPI_CORPUS=$(cd "$CAPI_CORPUS" && pwd)
clusterctl=${CLUSTERCTL:-$(go env GOPATH)/bin/clusterctl}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/xdg"
(cd "$root" && cargo build --release --quiet)
capi="$root/target/release/capi-render"

inputs() { # case dir -> absolute input paths, one per line
  local d=$1
  if [ -f "$d/corpus.txt" ]; then
    grep -v '^#' "$d/corpus.txt" | sed '/^$/d' | while read -r f; do echo "$CAPI_CORPUS/$f"; done
  fi
  find "$d" -maxdepth 1 -name '*.yaml' | sort
}

run() { # tool case outdir
  local tool=$1 d=$2 out=$3 args=()
  while read -r f; do args+=(-f "$f"); done < <(inputs "$d")
  if [ -f "$d/flags.txt" ]; then read -r -a flags < "$d/flags.txt"; args+=("${flags[@]}"); fi
  mkdir -p "$out"
  set +e
  (cd "$out" && env -i PATH="$PATH" HOME="$work/home" XDG_CONFIG_HOME="$work/xdg" \
     CLUSTERCTL_DISABLE_VERSIONCHECK=true "$tool" "${@:4}" "${args[@]}" -o . >stdout.txt 2>"$work/stderr")
  local rc=$?
  set -e
  if [ $rc -ne 0 ]; then
    if grep -q '^panic: ' "$work/stderr"; then
      # clusterctl panics where its dry-run client cannot decode an input object (an
      # int32 out of range, a string for a number): its message, with Go's dump of the
      # object shortened to `Kind namespace/name`.
      grep -m1 '^panic: ' "$work/stderr" | sed -E \
        -e 's/^panic: //' \
        -e 's/^failed to add object &\{map\[apiVersion:[^ ]* kind:([^ ]*) metadata:map\[name:([^ ]*) namespace:([^] ]*).*\} to fake client: /failed to add object \1 \3\/\2 to fake client: /' \
        > "$out/error.txt"
    else
      # From the `Error: ` line to the end (a CEL syntax error spans lines); without
      # capi-render's `  in FILE` / `  hint: ...` lines.
      # Paths of the checkout written relative to it (goldens hold no machine's paths).
      grep -v -e '^  in ' -e '^  hint: ' "$work/stderr" | sed -n '/^Error: /,$p' \
        | sed -e 's/^Error: //' -e "s#$root/##g" > "$out/error.txt"
      [ -s "$out/error.txt" ] || tail -n 1 "$work/stderr" | sed "s#$root/##g" > "$out/error.txt"
    fi
  fi
}

norm() {
  # clusterctl names an input it cannot parse by its absolute path: the clone's
  # directory is not part of the output. CEL names the type of `self` `selfType` and the clock's nanoseconds.
  sed -E 's#"/[^"]*/fixtures/topology/#"fixtures/topology/#g;
          s/selfType[0-9]+/selfTypeN/g;
          s/-[bcdfghjklmnpqrstvwxz2456789]{5}([^a-z0-9]|$)/-XXXXX\1/g;
          s/(lastTransitionTime"?:"? ?"?)[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z/\1TIME/g;
          s/^(---|\+\+\+) (.*)\t.*$/\1 \2\tTIME/'
}

normdir() { # dir -> a normalised listing (file name, then content; table rows sorted)
  local d=$1
  (cd "$d" && find . -type f | sort) | while read -r f; do
    echo "=== $(echo "$f" | norm)"
    if [ "$f" = ./stdout.txt ]; then norm < "$d/$f" | awk '/^  [a-z0-9-]+ +[A-Z]/{print | "sort"; next} {close("sort"); print}'; echo
    else printf '%s\n' "$(norm < "$d/$f")"; fi
  done | sort_sections
}

sort_sections() { python3 -c '
import sys
parts = sys.stdin.read().split("=== ")
print("".join("=== " + p for p in sorted(x for x in parts if x)), end="")'; }

status=0; cases=0; diffs=0
for d in "$root"/fixtures/topology/*/; do
  d=${d%/}; name=$(basename "$d")
  if [ ${#only[@]} -gt 0 ] && ! printf '%s\n' "${only[@]}" | grep -qxF "$name"; then continue; fi
  cases=$((cases+1))
  run "$clusterctl" "$d" "$work/go/$name" alpha topology plan
  if [ "$mode" = update ]; then
    rm -rf "$root/golden/topology/$name"; mkdir -p "$root/golden/topology"
    cp -r "$work/go/$name" "$root/golden/topology/$name"
    continue
  fi
  if ! diff <(normdir "$root/golden/topology/$name") <(normdir "$work/go/$name") >/dev/null; then
    echo "STALE golden/topology/$name (clusterctl's output changed)"; status=1
  fi
  run "$capi" "$d" "$work/ours/$name" topology plan --color always  # clusterctl always colours
  if [ -f "$d/differences.txt" ]; then
    # A known difference in the error's wording: compare up to the marker only.
    marker=$(sed -n 's/^same-until: //p' "$d/differences.txt")
    for e in "$work/go/$name/error.txt" "$work/ours/$name/error.txt"; do
      [ -f "$e" ] && MARKER="$marker" python3 -c '
import os, sys
p = sys.argv[1]; m = os.environ["MARKER"]; t = open(p).read()
i = t.find(m)
open(p, "w").write(t[: i + len(m)] + "\n" if i >= 0 else t)' "$e"
    done
  fi
  if diff -u <(normdir "$work/go/$name") <(normdir "$work/ours/$name") > "$work/diff"; then
    echo "ok   topology/$name"
  else
    echo "DIFF topology/$name"; head -40 "$work/diff"; status=1; diffs=$((diffs+1))
  fi
done
[ "$mode" = update ] && { echo "updated $cases topology cases"; exit 0; }
echo "topology: $cases cases, $diffs with differences"
exit $status
