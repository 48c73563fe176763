#!/usr/bin/env bash
# Conformance of capi-render's admission (issue 58) with Cluster API v1.14.2's: each case
# of conformance/admission/cases.txt is a ClusterClass and Cluster (most with one
# breakage) that the oracle conformance/oracle/v1beta2/cmd/desiredstateref admits as the
# API server and Cluster API do (`--admit-only`: the v1.14.2 CRD schema through
# apiextensions-apiserver's own code, field validation Strict or Warn, the defaulting and
# validating webhooks, the ClusterClass controller's status variables: see admit.go), and
# `capi-render render --stdout -q --clusters desired` must refuse or admit alike.
#
#   conformance/admission.sh              regenerate the goldens into a scratch directory,
#                       fail if a committed one differs, then compare capi-render with them
#                       (CAPI_RENDER=BINARY skips the build of the checkout's binary)
#   conformance/admission.sh update       rewrite golden/admission/<case>.txt (and
#                       <case>.desired.yaml) from the oracle
#   conformance/admission.sh differences  rewrite conformance/admission/differences/
#                       <case>.diff from the comparison (review them, and explain each in
#                       conformance/admission/differences.md)
#
# Cases: `name | input files | flags of both tools [| desired]` (paths relative to the
# repository, or `corpus:` ones to $CAPI_CORPUS with their `${VAR:-default}` placeholders
# given their defaults). Golden golden/admission/<case>.txt: the oracle's stderr then stdout
# (`admitted`, or the refusal as the API server returns it). With `desired` in the fourth
# column, the case is admitted and its desired state is compared too
# (golden/admission/<case>.desired.yaml, compared as conformance/topology-v1beta2.sh does:
# random name suffixes and document order normalised).
# Compared (each side projected to lines, then diffed):
#   - `admitted` (capi-render: exit 0);
#   - for unknown fields, the set of field paths: `unknown field PATH` (the oracle's
#     `unknown field "PATH"` lines, capi-render's `PATH: unknown field in ...` lines);
#   - otherwise `refused: MESSAGE`, MESSAGE the text from `Cluster.cluster.x-k8s.io "` or
#     `ClusterClass.cluster.x-k8s.io "` to the end of that line (apierrors.NewInvalid's
#     message), or, without that anchor, the oracle's whole message and capi-render's first
#     error line.
# Known differences: differences/<case>.diff, the exact diff (oracle -> capi-render), each
# with a section in differences.md headed `## ... (`<case>`, ...)`; a listed difference that
# disappears, or an unlisted one, fails the check.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
mode=${1:-check}
CAPI_CORPUS=${CAPI_CORPUS:-$root/../shared/corpus}
CAPI_CORPUS=$(cd "$CAPI_CORPUS" && pwd)
cases_file="$here/admission/cases.txt"
diffs_dir="$here/admission/differences"
golden="$root/golden/admission"
crds="$root/src/admission/crds-v1.14.2.yaml"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

oracle=$("$here/oracle-v1beta2.sh")
if [ -n "${CAPI_RENDER:-}" ]; then capi=$CAPI_RENDER; else
  (cd "$root" && cargo build --release --quiet); capi="${CARGO_TARGET_DIR:-$root/target}/release/capi-render"; fi

norm() { # desired-state file -> normalised text (random suffixes, document order)
  sed -E 's/-[bcdfghjklmnpqrstvwxz2456789]{5}([^a-z0-9]|$)/-XXXXX\1/g' "$1" | python3 -c '
import sys
docs = [d.strip("\n") for d in ("\n" + sys.stdin.read()).split("\n---\n")]
print("\n---\n".join(sorted(d for d in docs if d)))'
}

inputs() { # case path... -> input paths
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

project() { # oracle|capi FILE -> the compared lines
  python3 - "$1" "$2" <<'EOF'
import re, sys
who, text = sys.argv[1], open(sys.argv[2]).read()
lines = text.splitlines()
anchor = re.compile(r'(Cluster|ClusterClass)\.cluster\.x-k8s\.io "')
if who == "oracle":
    if lines and lines[-1] == "admitted":
        print("admitted"); sys.exit()
    unknown = sorted({m.group(1) for l in lines for m in [re.match(r'^unknown field "(.*)"$', l)] if m})
else:
    if lines and lines[-1] == "exit 0":
        print("admitted"); sys.exit()
    unknown = sorted({m.group(1) for l in lines for m in [re.search(r'(?:^|\s)(\S+): unknown field in ', l)] if m})
if unknown:
    print("\n".join("unknown field " + u for u in unknown)); sys.exit()
for l in lines:
    m = anchor.search(l)
    if m:
        print("refused: " + l[m.start():]); sys.exit()
errs = [l for l in lines if l.startswith("Error: ")]
first = errs[0] if errs else (lines[0] if lines else "")
if who == "oracle":  # Error: Kind namespace/name: MESSAGE
    first = first.split(": ", 2)[-1]
print("refused: " + first)
EOF
}

trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; echo "${s%"${s##*[![:space:]]}"}"; }

status=0; cases=0; ndiff=0; names=()
mkdir -p "$work/gold"
while IFS='|' read -r name files flags want; do
  name=$(trim "$name")
  [ -z "$name" ] && continue; case "$name" in \#*) continue;; esac
  names+=("$name"); cases=$((cases + 1))
  want=$(trim "${want:-}")
  read -r -a fl <<<"$files"
  read -r -a cflags <<<"${flags:-}"
  args=()
  while read -r f; do args+=(-f "$f"); done < <(inputs "$name" "${fl[@]}")
  # The oracle: admission only, then (a `desired` case) the desired state.
  set +e
  "$oracle" --admit-only --crds "$crds" ${cflags[@]+"${cflags[@]}"} "${args[@]}" >"$work/o.out" 2>"$work/o.err"
  set -e
  cat "$work/o.err" "$work/o.out" | sed "s#$root/##g; s#$work/in/$name/##g" >"$work/gold/$name.txt"
  if [ "$want" = desired ] && ! "$oracle" --crds "$crds" ${cflags[@]+"${cflags[@]}"} "${args[@]}" >"$work/gold/$name.desired.yaml" 2>"$work/o.err"; then
    echo "FAIL $name: the oracle computes no desired state:"; cat "$work/o.err"; status=1; continue
  fi
  if [ "$mode" = update ]; then
    mkdir -p "$golden"
    cmp -s "$work/gold/$name.txt" "$golden/$name.txt" 2>/dev/null || { cp "$work/gold/$name.txt" "$golden/$name.txt"; echo "updated golden/admission/$name.txt"; }
    if [ "$want" = desired ] && { [ ! -f "$golden/$name.desired.yaml" ] || ! cmp -s <(norm "$golden/$name.desired.yaml") <(norm "$work/gold/$name.desired.yaml"); }; then
      cp "$work/gold/$name.desired.yaml" "$golden/$name.desired.yaml"; echo "updated golden/admission/$name.desired.yaml"
    fi
    continue
  fi
  if [ ! -f "$golden/$name.txt" ]; then echo "MISSING golden/admission/$name.txt"; status=1; continue; fi
  if ! cmp -s "$golden/$name.txt" "$work/gold/$name.txt"; then
    echo "STALE golden/admission/$name.txt (the oracle's output changed)"; diff "$golden/$name.txt" "$work/gold/$name.txt" | head -10; status=1
  fi
  if [ "$want" = desired ] && ! cmp -s <(norm "$golden/$name.desired.yaml") <(norm "$work/gold/$name.desired.yaml"); then
    echo "STALE golden/admission/$name.desired.yaml (the oracle's output changed)"; status=1
  fi
  # capi-render.
  set +e
  env -i PATH="$PATH" "$capi" render --stdout -q --clusters desired ${cflags[@]+"${cflags[@]}"} "${args[@]}" >"$work/c.out" 2>"$work/c.err"
  rc=$?
  set -e
  { sed "s#$root/##g; s#$work/in/$name/##g" "$work/c.err"; echo "exit $rc"; } >"$work/c.txt"
  {
    project oracle "$golden/$name.txt"
    [ "$want" = desired ] && { echo "desired state:"; norm "$golden/$name.desired.yaml"; }
  } >"$work/o.proj"
  {
    project capi "$work/c.txt"
    [ "$want" = desired ] && { echo "desired state:"; if [ $rc = 0 ]; then norm "$work/c.out"; else echo "(none: exit $rc)"; fi; }
  } >"$work/c.proj"
  diff -u --label "oracle/$name" --label "capi-render/$name" "$work/o.proj" "$work/c.proj" >"$work/actual.diff" || true
  expected="$diffs_dir/$name.diff"
  if [ "$mode" = differences ]; then
    mkdir -p "$diffs_dir"
    if [ -s "$work/actual.diff" ]; then cp "$work/actual.diff" "$expected"; else rm -f "$expected"; fi
    continue
  fi
  if [ -s "$work/actual.diff" ]; then ndiff=$((ndiff + 1)); fi
  if [ -f "$expected" ]; then
    if cmp -s "$expected" "$work/actual.diff"; then
      echo "ok   $name (listed difference)"
    elif [ ! -s "$work/actual.diff" ]; then
      echo "FAIL $name: the listed difference is gone (remove differences/$name.diff and its entry)"; status=1
    else
      echo "FAIL $name: the difference changed:"; diff "$expected" "$work/actual.diff" | head -20; status=1
    fi
  elif [ -s "$work/actual.diff" ]; then
    echo "DIFF $name (unlisted):"; head -30 "$work/actual.diff"; status=1
  else
    echo "ok   $name: $(head -1 "$work/o.proj" | cut -c1-150)"
  fi
done <"$cases_file"
[ "$mode" = update ] && { echo "updated $cases admission cases"; exit "$status"; }
[ "$mode" = differences ] && { echo "wrote the differences of $cases admission cases"; exit "$status"; }

# Every listed difference belongs to a case and is explained in differences.md; every
# golden belongs to a case.
for f in "$diffs_dir"/*.diff; do
  [ -e "$f" ] || continue
  n=$(basename "$f" .diff)
  printf '%s\n' "${names[@]}" | grep -qxF "$n" || { echo "FAIL differences/$n.diff: no such case"; status=1; }
  grep -q "^## .*\`$n\`" "$here/admission/differences.md" || { echo "FAIL differences/$n.diff: no section in differences.md"; status=1; }
done
for f in "$golden"/*.txt; do
  [ -e "$f" ] || continue
  n=$(basename "$f" .txt)
  printf '%s\n' "${names[@]}" | grep -qxF "$n" || { echo "FAIL golden/admission/$n.txt: no such case"; status=1; }
done
listed=$( (ls "$diffs_dir"/*.diff 2>/dev/null || true) | wc -l)
echo "admission: $cases cases against Cluster API v1.14.2's admission, $((cases - ndiff)) agree, $listed listed differences, unlisted or changed: $([ $status = 0 ] && echo 0 || echo 'see above')"
exit $status
