#!/usr/bin/env bash
# Regenerate the envsubst golden files from the real Go code
# (github.com/drone/envsubst/v2 and clusterctl v1.10.10's SimpleProcessor).
#
#   conformance/regen-envsubst.sh OUTDIR
#
# writes OUTDIR/envsubst/{cases.json,unicode.json}, the same layout as golden/.
# `conformance/regen-envsubst.sh golden` regenerates in place; CI regenerates into a
# temporary directory and diffs it against golden/.
set -euo pipefail

if [ "$#" -ne 1 ]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi

here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$1"
out="$(cd "$1" && pwd)"

cd "$here/oracle"
go run ./cmd/envsubstref "$out"
