# Sourced by gitops-crds.sh and apiserver.sh: where the Flux, Argo CD and operator CRDs come
# from. The projects publish their repositories on the Go module proxy; these are the
# newest releases it serves that this machine's Go accepts. Needs $work (a scratch dir).
ARGOCD_VERSION=v3.3.0
KUSTOMIZE_CONTROLLER_VERSION=v1.6.0
OPERATOR_VERSION=v0.29.0
moddir() { # module version -> its directory in the module cache
  (cd "$work" && go mod download -json "$1@$2") | python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])'
}
