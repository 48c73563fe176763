#!/usr/bin/env bash
# Conformance of `capi-render bundle` against real tools:
#   * images.txt of the four corpus providers (v1.10.10) equals the images clusterctl
#     v1.10.10 reports for them. `clusterctl init list-images` needs a management
#     cluster, so, as conformance/run.sh does for `init list-images`, the reference is
#     the union of clusterctl's offline `generate provider --describe` image lists;
#   * rendered/cert-manager/cert-manager.yaml equals what clusterctl v1.10.10's own
#     cert-manager install creates (oracle/cmd/certmanagerref, a fake management cluster);
#   * SHA256SUMS is accepted by coreutils `sha256sum -c`;
#   * a compressed ConfigMap (the >1 MiB AWS provider of the stress corpus) decodes
#     with coreutils `base64 -d` and gzip's `gunzip` to the repository file;
#   * `bundle verify` accepts the bundles and rejects a damaged one.
#
#   conformance/bundle.sh CAPI_RENDER CLUSTERCTL      (CAPI_CORPUS as in run.sh)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
capi=$1
clusterctl=$2
CAPI_CORPUS=${CAPI_CORPUS:-$root/../shared/corpus}
CAPI_CORPUS=$(cd "$CAPI_CORPUS" && pwd)
R="$CAPI_CORPUS/repository"
ver=v1.10.10

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/xdg"
fail=0
note() { echo "$*" >&2; }

# --- images.txt vs clusterctl -----------------------------------------------------------
"$capi" bundle -f "$root/fixtures/bundle/providers.yaml" -o "$work/b" --repository "$R" --oci >/dev/null
cfg="$work/clusterctl.yaml"
# shellcheck source=conformance/describe-images.sh
. "$here/describe-images.sh"
corpus_providers_config "$R" "$ver" "$cfg"
describe_images "$clusterctl" "$cfg" "$work" >"$work/expected"
# clusterctl's list-images adds cert-manager's (InspectImages: the container images of
# its Deployments), read from the real release manifest the bundle carries.
cm="$R/cert-manager/v1.19.1/cert-manager.yaml"
if [ -f "$cm" ]; then
  awk '/^kind: /{k=$2} /^---/{k=""} k=="Deployment" && /^ +image: /{gsub(/"/,"",$2); print $2}' "$cm" >>"$work/expected"
fi
sort -u "$work/expected" -o "$work/expected"
if ! cmp -s "$work/expected" "$work/b/images.txt"; then
  note "DIFF bundle images.txt vs clusterctl"; diff -u "$work/expected" "$work/b/images.txt" >&2; fail=1
fi
nimages=$(wc -l <"$work/expected")

# --- cert-manager: rendered/ vs what clusterctl's own code installs ------------------------
# cmd/certmanagerref runs clusterctl v1.10.10's CertManager().EnsureInstalled against a fake
# management cluster and prints the objects it created, in manifest order.
cmcheck="no local cert-manager release"
if [ -f "$cm" ]; then
  (cd "$here/oracle" && go build -o "$work/certmanagerref" ./cmd/certmanagerref)
  printf 'cert-manager:\n  url: %s\n  version: v1.19.1\n' "$cm" >"$work/cm.yaml"
  if ! env -i PATH="$PATH" HOME="$work/home" XDG_CONFIG_HOME="$work/xdg" \
    "$work/certmanagerref" "$work/cm.yaml" >"$work/cm-expected" 2>"$work/cm.err"; then
    cat "$work/cm.err" >&2; fail=1
  elif ! cmp -s "$work/cm-expected" "$work/b/rendered/cert-manager/cert-manager.yaml"; then
    note "DIFF rendered/cert-manager/cert-manager.yaml vs clusterctl's install"
    diff -u "$work/cm-expected" "$work/b/rendered/cert-manager/cert-manager.yaml" | head -40 >&2; fail=1
  else
    cmcheck="cert-manager $(grep -c '^kind: ' "$work/cm-expected") objects identical to clusterctl's install"
  fi
  # With a mirror: clusterctl's install with the same override in its config's images.
  "$capi" bundle -f "$root/fixtures/bundle/providers.yaml" -o "$work/bm" --repository "$R" \
    --image-registry mirror.example:5000/capi >/dev/null 2>&1
  printf 'images:\n  all:\n    repository: mirror.example:5000/capi\n' >>"$work/cm.yaml"
  env -i PATH="$PATH" HOME="$work/home" XDG_CONFIG_HOME="$work/xdg" \
    "$work/certmanagerref" "$work/cm.yaml" >"$work/cm-mirror" 2>"$work/cm.err" || true
  if ! cmp -s "$work/cm-mirror" "$work/bm/rendered/cert-manager/cert-manager.yaml"; then
    note "DIFF mirrored rendered/cert-manager/cert-manager.yaml vs clusterctl's install"
    diff -u "$work/cm-mirror" "$work/bm/rendered/cert-manager/cert-manager.yaml" | head -40 >&2; fail=1
  else
    cmcheck="$cmcheck (also with a mirror)"
  fi
fi

# --- SHA256SUMS with coreutils ------------------------------------------------------------
if ! (cd "$work/b" && sha256sum --quiet -c SHA256SUMS); then note "FAIL: sha256sum -c rejects SHA256SUMS"; fail=1; fi
nfiles=$(wc -l <"$work/b/SHA256SUMS")

# --- compressed ConfigMap with base64 + gunzip ---------------------------------------------
aws="$CAPI_CORPUS/stress/repository/infrastructure-aws/v2.10.3"
if [ -d "$aws" ]; then
  printf 'providers:\n  - {name: aws, type: InfrastructureProvider, url: %s}\n' "$aws/infrastructure-components.yaml" >"$work/aws.yaml"
  cat >"$work/aws-in.yaml" <<'YAML'
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata: {name: cluster-api, namespace: capi-system}
spec: {version: v1.10.10}
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: InfrastructureProvider
metadata: {name: aws, namespace: capa-system}
spec: {version: v2.10.3, configSecret: {name: aws-variables}}
---
apiVersion: v1
kind: Secret
metadata: {name: aws-variables, namespace: capa-system}
data: {AWS_B64ENCODED_CREDENTIALS: Q2c9PQ==}
YAML
  "$capi" bundle -f "$work/aws-in.yaml" -o "$work/aws" --repository "$R" --config "$work/aws.yaml" >/dev/null
  cm="$work/aws/configmaps/capa-system/infrastructure-aws-v2.10.3.yaml"
  grep -q 'provider.cluster.x-k8s.io/compressed: "true"' "$cm" || { note "FAIL: AWS ConfigMap not compressed"; fail=1; }
  awk '/^binaryData:/{f=1;next} f && /^  components: /{print $2; exit}' "$cm" | base64 -d | gunzip >"$work/aws-components.yaml"
  cmp -s "$work/aws-components.yaml" "$aws/infrastructure-components.yaml" || { note "FAIL: gunzip of the AWS ConfigMap differs from the repository file"; fail=1; }
  "$capi" bundle verify "$work/aws" >/dev/null || { note "FAIL: verify rejects the AWS bundle"; fail=1; }
fi

# --- verify --------------------------------------------------------------------------------
"$capi" bundle verify "$work/b" >/dev/null || { note "FAIL: verify rejects a fresh bundle"; fail=1; }
printf '#' >>"$work/b/repository/infrastructure-docker/$ver/metadata.yaml"
if "$capi" bundle verify "$work/b" >/dev/null 2>&1; then note "FAIL: verify accepts a damaged bundle"; fail=1; fi

echo "bundle: images.txt $nimages images vs clusterctl, $cmcheck, $nfiles files checked by sha256sum, $([ "$fail" = 0 ] && echo OK || echo FAILED)"
exit "$fail"
