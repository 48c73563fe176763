#!/usr/bin/env bash
# Build the v1beta2 oracle with Cluster API's own Runtime SDK client (desiredstateref
# built with -tags capirender_runtime) once per source hash, outside the checkout, and
# print its path. Used by conformance/runtime-sdk.sh.
#
# That client is internal/runtime/client, which only packages of the Cluster API module
# may import; the ClusterClass controller's reconcileVariables is unexported. So the
# v1.14.2 module is copied from the module cache to a scratch directory, our accessor
# (oracle/v1beta2/_capi-additions/) is added to the copy's clusterclass package, our
# oracle sources become a command of the copy, and a wrapper module (go.mod and go.sum
# of oracle/v1beta2, plus a replace of sigs.k8s.io/cluster-api by the copy) builds it.
# Cluster API's own files stay as released.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$here/oracle/v1beta2"
hash=$( (cd "$src" && cat go.mod go.sum $(find cmd/desiredstateref _capi-additions -name '*.go' | sort)) | sha256sum | cut -c1-16)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/capi-render/oracle-runtime
oracle="$cache/desiredstateref-$hash"
if [ -x "$oracle" ]; then echo "$oracle"; exit 0; fi
echo "building the v1beta2 oracle with Cluster API's runtime client" >&2
mkdir -p "$cache"
scratch="$(mktemp -d)"
trap 'chmod -R u+w "$scratch" 2>/dev/null || true; rm -rf "$scratch"' EXIT
capi=$(cd "$src" && go mod download -json sigs.k8s.io/cluster-api | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
cp -r "$capi" "$scratch/cluster-api"
chmod -R u+w "$scratch/cluster-api"
cp "$src/_capi-additions/zz_capirender_oracle.go" "$scratch/cluster-api/core/reconcilers/clusterclass/"
mkdir -p "$scratch/cluster-api/cmd/capirender-desiredstateref"
cp "$src"/cmd/desiredstateref/*.go "$scratch/cluster-api/cmd/capirender-desiredstateref/"
mkdir -p "$scratch/wrapper"
cp "$src/go.mod" "$src/go.sum" "$scratch/wrapper/"
echo "replace sigs.k8s.io/cluster-api => $scratch/cluster-api" >>"$scratch/wrapper/go.mod"
(cd "$scratch/wrapper" && GOFLAGS=-mod=mod go build -tags capirender_runtime -o "$oracle.tmp" \
  sigs.k8s.io/cluster-api/cmd/capirender-desiredstateref) && mv "$oracle.tmp" "$oracle"
echo "$oracle"
