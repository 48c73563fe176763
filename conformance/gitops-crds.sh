#!/usr/bin/env bash
# The Flux Kustomizations and Argo CD Applications `render -o --flux --argocd` writes,
# checked against the real CRDs of Flux (kustomize-controller) and Argo CD, with
# apiextensions-apiserver's own create-time validation (conformance/oracle/cmd/crdvalidate:
# defaulting, the OpenAPI schema, unknown fields the API server would prune, and the
# x-kubernetes-validations CEL rules). The CRDs come from the Go module proxy, where the
# projects publish their repositories: argo-cd's manifests/crds and kustomize-controller's
# config/crd/bases.
#
#   conformance/gitops-crds.sh      (CAPI_CORPUS as in run.sh)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
CAPI_CORPUS=${CAPI_CORPUS:-$root/../shared/corpus}
CAPI_CORPUS=$(cd "$CAPI_CORPUS" && pwd)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=conformance/crd-sources.sh
. "$here/crd-sources.sh"
argo=$(moddir github.com/argoproj/argo-cd/v3 "$ARGOCD_VERSION")/manifests/crds
flux=$(moddir github.com/fluxcd/kustomize-controller "$KUSTOMIZE_CONTROLLER_VERSION")/config/crd/bases
crds=("$argo/application-crd.yaml" "$argo/applicationset-crd.yaml" "$flux/kustomize.toolkit.fluxcd.io_kustomizations.yaml")
(cd "$here/oracle" && go build -o "$work/crdvalidate" ./cmd/crdvalidate)
(cd "$root" && cargo build --release --quiet)
capi="$root/target/release/capi-render"

fail=0
check_case() { # name render-options...
  local name=$1; shift
  local dir="$work/$name"; mkdir -p "$dir"
  cp "$root/fixtures/gitops/corpus/providers.yaml" "$dir/"
  cp -r "$root/fixtures/quickstart/clusters" "$dir/"
  ln -s "$CAPI_CORPUS/repository" "$dir/repository"
  (cd "$dir" && "$capi" render -f providers.yaml -f clusters --repository repository -o out \
    --flux --argocd --argocd-repo https://git.example.invalid/fleet.git "$@" 2>/dev/null)
  local files; mapfile -t files < <(cd "$dir" && find out/flux out/argocd -name '*.yaml' ! -name kustomization.yaml | sort)
  if (cd "$dir" && "$work/crdvalidate" "${crds[@]}" -- "${files[@]}" >"$dir/validate.log"); then
    echo "gitops-crds $name: ${#files[@]} Flux Kustomizations and Argo CD Applications valid (Argo CD $ARGOCD_VERSION, kustomize-controller $KUSTOMIZE_CONTROLLER_VERSION)"
  else
    echo "FAIL gitops-crds $name:" >&2; grep -v '^checked ' "$dir/validate.log" >&2; fail=1
  fi
}

check_case defaults
check_case options --flux-depends-on cert-manager --flux-depends-on flux-system/infra \
  --flux-interval 5m --flux-timeout 2m30s --flux-source fleet --flux-path ./capi \
  --argocd-revision main --argocd-project capi --argocd-namespace gitops
exit $fail
