#!/usr/bin/env bash
# Regenerate the YAML writer's golden files by running the real Go code
# (sigs.k8s.io/yaml v1.4.0, pinned in conformance/oracle/go.mod).
#
#   conformance/regen-yaml.sh OUTDIR
#
# writes OUTDIR/yaml/cases.json and OUTDIR/yaml/named/*, the same layout as under
# golden/. `conformance/regen-yaml.sh golden` regenerates in place; CI can regenerate
# into a temporary directory and `diff -r` it against golden/yaml.
#
# Set CAPI_CORPUS (a directory holding repository/*/*/*components.yaml) and
# YAML_CORPUS_OUT to also write Go's parse+marshal of every corpus document to
# YAML_CORPUS_OUT/NNN.yaml plus YAML_CORPUS_OUT/files.txt listing the inputs in order;
# `YAML_CORPUS_EXPECTED=$YAML_CORPUS_OUT cargo test --test yaml_emit` then compares.
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$1"
out="$(cd "$1" && pwd)"

bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
(cd "$here/oracle" && go build -o "$bin/yamlref" ./cmd/yamlref)

rm -rf "$out/yaml"
"$bin/yamlref" gen "$out"

if [ -n "${YAML_CORPUS_OUT:-}" ]; then
  corpus="${CAPI_CORPUS:?set CAPI_CORPUS to the corpus directory}"
  mkdir -p "$YAML_CORPUS_OUT"
  files=()
  for f in "$corpus"/repository/*/*/*components.yaml; do
    files+=("$f")
  done
  printf '%s\n' "${files[@]}" >"$YAML_CORPUS_OUT/files.txt"
  "$bin/yamlref" corpus "$YAML_CORPUS_OUT" "${files[@]}"
fi
