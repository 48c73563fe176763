#!/usr/bin/env bash
# ClusterClass variable goldens from the real clusterctl v1.10.10.
#
#   conformance/topology-variables.sh update   write golden/topology-variables/*
#   conformance/topology-variables.sh [check]  regenerate into a scratch directory and
#                                              fail if a committed golden differs
#
# Each fixtures/topology-variables/<case>.yaml holds a ClusterClass and a Cluster; it is
# planned together with base.yaml (CRDs, templates) by `clusterctl alpha topology plan`,
# which runs the ClusterClass and Cluster webhooks (variable defaulting and validation)
# offline. A case that plans records the Cluster as clusterctl would write it
# (`<case>.cluster.yaml`: its `spec.topology`); a case that fails records
# the error (`<case>.error`). tests/topology_variables.rs compares capi-render with both.
#
# fixtures/topology-variables/corpus/<case>.yaml holds only a Cluster; its header names
# the real ClusterClass file in $CAPI_CORPUS (`# corpus: <path>`) and literal
# replacements for its clusterctl placeholders (`# replace: <from> => <to>`). Their
# goldens go to golden/topology-variables/corpus/.
#
# fixtures/topology-variables/cel/cases.yaml lists CEL rules evaluated one by one by
# conformance/oracle/cmd/varsref (golden/topology-variables/cel.json).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
mode=${1:-check}
CLUSTERCTL_VERSION=v1.10.10
fixtures="$root/fixtures/topology-variables"
CAPI_CORPUS=${CAPI_CORPUS:-$root/../shared/corpus}
CAPI_CORPUS=$(cd "$CAPI_CORPUS" && pwd)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/out"

gobin=$(go env GOPATH)/bin
clusterctl=${CLUSTERCTL:-$gobin/clusterctl}
if ! go version -m "$clusterctl" 2>/dev/null | grep -q "mod[[:space:]]*sigs.k8s.io/cluster-api[[:space:]]*$CLUSTERCTL_VERSION"; then
  echo "installing clusterctl $CLUSTERCTL_VERSION with go install" >&2
  GOBIN="$work/bin" go install "sigs.k8s.io/cluster-api/cmd/clusterctl@$CLUSTERCTL_VERSION"
  clusterctl="$work/bin/clusterctl"
fi

gold="$work/golden"; mkdir -p "$gold/corpus"
n=0

# The real ClusterClass a corpus case names, with its placeholders replaced.
corpus_class() { # case-file
  local rel content from to
  rel=$(sed -n 's/^# corpus: //p' "$1")
  content=$(cat "$CAPI_CORPUS/$rel")
  while IFS= read -r line; do
    from=${line%% => *}; to=${line#* => }
    content=${content//"$from"/"$to"}
  done < <(sed -n 's/^# replace: //p' "$1")
  printf '%s\n' "$content"
}

plan() { # input-file golden-prefix
  rm -rf "$work/out"; mkdir -p "$work/out"
  set +e
  env -i PATH="$PATH" HOME="$work/home" CLUSTERCTL_DISABLE_VERSIONCHECK=true \
    "$clusterctl" alpha topology plan -f "$1" -o "$work/out" >"$work/stdout" 2>"$work/stderr" </dev/null
  rc=$?
  set -e
  if [ $rc = 0 ]; then
    # spec.topology only: the refs carry random name suffixes, the status timestamps.
    awk '/^status:/{f=0} /^  topology:/{f=1} f' "$work/out/modified/Cluster_default_c1.modified.yaml" >"$2.cluster.yaml"
  else
    grep '^Error: ' "$work/stderr" | sed 's/^Error: //' >"$2.error"
  fi
  n=$((n + 1))
}

for f in "$fixtures"/*.yaml; do
  name=$(basename "$f" .yaml)
  [ "$name" = base ] && continue
  { cat "$fixtures/base.yaml"; echo '---'; cat "$f"; } >"$work/in.yaml"
  plan "$work/in.yaml" "$gold/$name"
done
for f in "$fixtures"/corpus/*.yaml; do
  name=$(basename "$f" .yaml)
  { cat "$fixtures/base.yaml"; echo '---'; corpus_class "$f"; echo '---'; cat "$f"; } >"$work/in.yaml"
  plan "$work/in.yaml" "$gold/corpus/$name"
done

# CEL semantics, rule by rule, from apiextensions' CEL validator (our Go oracle).
(cd "$here/oracle" && go run ./cmd/varsref cel "$fixtures/cel/cases.yaml" "$gold/cel.json")

dest="$root/golden/topology-variables"
if [ "$mode" = update ]; then
  rm -rf "$dest"; mkdir -p "$dest"; cp -r "$gold"/. "$dest/"
  echo "topology-variables: $n goldens written"
  exit 0
fi
if ! diff -r "$dest" "$gold" >"$work/diff"; then
  echo "FAIL: golden/topology-variables differs from clusterctl $CLUSTERCTL_VERSION:" >&2; head -40 "$work/diff" >&2
  exit 1
fi
echo "topology-variables: $n cases, goldens up to date"
