#!/usr/bin/env bash
# Go text/template + sprig (cluster-api v1.10.10's valueFrom.template engine) goldens.
#
#   conformance/gotmpl.sh          regenerate into a scratch directory and fail if the
#                                  committed golden/gotmpl/ differs (stale or hand-edited)
#   conformance/gotmpl.sh update   regenerate golden/gotmpl/ in place
#   conformance/gotmpl.sh OUTDIR   write OUTDIR/gotmpl/ (as conformance/run.sh does for
#                                  its regen-*.sh scripts)
#
# The oracle is conformance/oracle/cmd/gotmplref; cases come from fixtures/gotmpl/*.json
# plus its generated set. Golden files only ever come from the oracle.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
mode=${1:-check}

regen() { # outdir
  mkdir -p "$1"
  local out; out="$(cd "$1" && pwd)"
  (cd "$here/oracle" && go run ./cmd/gotmplref "$root/fixtures/gotmpl" "$out")
}

case "$mode" in
  update)
    rm -rf "$root/golden/gotmpl"
    regen "$root/golden"
    ;;
  check)
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    regen "$work"
    if ! diff -r "$root/golden/gotmpl" "$work/gotmpl" >"$work/diff"; then
      echo "FAIL: golden/gotmpl differs from what Go text/template + sprig produce now:" >&2
      head -50 "$work/diff" >&2
      exit 1
    fi
    echo "gotmpl goldens: OK"
    ;;
  *)
    regen "$mode"
    ;;
esac
