#!/usr/bin/env bash
# Build the v1beta2 oracle (conformance/oracle/v1beta2/cmd/desiredstateref: CAPI v1.14.2's
# desired-state and up-to-date code) once per source hash, outside the checkout, and print
# its path. Used by conformance/topology-v1beta2.sh and conformance/impact.sh.
set -euo pipefail
src="$(cd "$(dirname "$0")" && pwd)/oracle/v1beta2"
hash=$( (cd "$src" && cat go.mod go.sum $(find cmd -name '*.go' | sort)) | sha256sum | cut -c1-16)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/capi-render/oracle-v1beta2
oracle="$cache/desiredstateref-$hash"
if [ ! -x "$oracle" ]; then
  echo "building the v1beta2 oracle (CAPI $(sed -n 's/^[[:space:]]*sigs.k8s.io\/cluster-api \(v[^ ]*\)$/\1/p' "$src/go.mod"))" >&2
  mkdir -p "$cache"
  (cd "$src" && go build -o "$oracle.tmp" ./cmd/desiredstateref) && mv "$oracle.tmp" "$oracle"
fi
echo "$oracle"
