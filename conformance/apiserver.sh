#!/usr/bin/env bash
# capi-render's trees against a real API server: kube-apiserver v1.34.4 (built from the
# Go module proxy, cached outside the checkout) on etcd (Debian's etcd-server), no
# controllers. Every apply is `kubectl apply --server-side`; nothing may fail.
#
#   0. `capi-render init list-images` against the real `clusterctl init list-images`
#      (v1.10.10 and v1.14.2, given as CLUSTERCTL and CLUSTERCTL_V114) on the empty cluster;
#   1. a bundle's configmaps/ with the README's command (`kubectl apply --server-side -R`),
#      the core ConfigMap included (over client-side apply's 256 KiB limit), on the
#      cluster-api-operator v0.29.0 CRDs;
#   2. cert-manager v1.19.1 from the corpus (as clusterctl installs it first); then the
#      tree of the corpus providers (v1.9.11) and a fleet of topology Clusters of the
#      corpus quick-start ClusterClass: CRDs and Namespaces, then everything;
#   3. a provider upgrade (v1.9.11 -> v1.10.10) and a changed fleet (one Cluster
#      removed), applied as an ApplySet with --prune: exactly the objects the new tree
#      dropped are deleted, and every object of the new tree exists; then a ClusterClass
#      patch changed, in both cluster modes: managed (the default: class units and
#      Clusters applied, the ClusterClass changes in place) and flatten (a fleet of its
#      own: the desired objects applied; every changed template gets a new name, every
#      reference moves, the old templates are pruned, none changes its spec in place);
#   4. the Flux Kustomizations and Argo CD Applications, against the real Flux and Argo
#      CD CRDs (server-side dry run);
#   5. `render --secrets flux-substitute` substituted by Flux's own code and applied
#      (conformance/secrets.sh); `render --secrets sops` decrypted by the real sops and
#      applied (conformance/sops.sh).
# Nothing serves the providers' webhooks (no controller runs), so the API server runs
# with the admission webhook plugins disabled: their configurations are stored, never
# called.
#
#   conformance/apiserver.sh        (CAPI_CORPUS as in run.sh)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
CAPI_CORPUS=${CAPI_CORPUS:-$root/../shared/corpus}
CAPI_CORPUS=$(cd "$CAPI_CORPUS" && pwd)
K8S_VERSION=v1.34.4

work=$(mktemp -d)
# etcd's data on tmpfs when there is one: its fsyncs are then free (the data is thrown away).
etcd_dir=$(mktemp -d -p "$([ -w /dev/shm ] && echo /dev/shm || echo "$work")")
pids=()
# SIGKILL: nothing of theirs outlives the run, and a graceful kube-apiserver shutdown
# takes 20 s.
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work" "$etcd_dir"; }
trap cleanup EXIT
# shellcheck source=conformance/crd-sources.sh
. "$here/crd-sources.sh"
note() { echo "$*" >&2; }

# --- kube-apiserver and etcd --------------------------------------------------------------
cache=${XDG_CACHE_HOME:-$HOME/.cache}/capi-render/kube-apiserver-$K8S_VERSION
apiserver="$cache/kube-apiserver"
if [ ! -x "$apiserver" ]; then
  echo "building kube-apiserver $K8S_VERSION from the Go module proxy" >&2
  mkdir -p "$cache/mod"
  (cd "$cache/mod" && printf 'module kapi\n\ngo 1.24.0\n' >go.mod &&
    printf '//go:build tools\n\npackage tools\n\nimport _ "k8s.io/kubernetes/cmd/kube-apiserver"\n' >tools.go &&
    go get "k8s.io/kubernetes@$K8S_VERSION" >/dev/null 2>&1 &&
    # k8s.io/kubernetes replaces its staging modules with ./staging: pin them instead.
    for m in $(grep -E '^\s+k8s.io/[a-z-]+ v0.0.0$' "$(go env GOMODCACHE)/k8s.io/kubernetes@$K8S_VERSION/go.mod" | awk '{print $1}'); do
      echo "replace $m => $m v0${K8S_VERSION#v1}" >>go.mod
    done &&
    GOFLAGS=-mod=mod go build -o "$apiserver" k8s.io/kubernetes/cmd/kube-apiserver)
fi
if ! command -v etcd >/dev/null; then
  apt-get install -y -qq etcd-server >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq etcd-server >/dev/null 2>&1; } ||
    { note "etcd not found and Debian's etcd-server not installable"; exit 1; }
fi
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
etcd_port=$(port); peer_port=$(port); api_port=$(port)
etcd --data-dir "$etcd_dir/etcd" --listen-client-urls "http://127.0.0.1:$etcd_port" \
  --advertise-client-urls "http://127.0.0.1:$etcd_port" --listen-peer-urls "http://127.0.0.1:$peer_port" \
  >"$work/etcd.log" 2>&1 &
pids+=($!)
openssl genrsa -out "$work/sa.key" 2048 2>/dev/null
openssl rsa -in "$work/sa.key" -pubout -out "$work/sa.pub" 2>/dev/null
echo "conformance-token,admin,admin,system:masters" >"$work/tokens.csv"
"$apiserver" --etcd-servers "http://127.0.0.1:$etcd_port" --cert-dir "$work/certs" \
  --secure-port "$api_port" --bind-address 127.0.0.1 --allow-privileged=true \
  --service-account-key-file "$work/sa.pub" --service-account-signing-key-file "$work/sa.key" \
  --service-account-issuer https://kubernetes.default.svc --token-auth-file "$work/tokens.csv" \
  --authorization-mode AlwaysAllow --service-cluster-ip-range 10.96.0.0/16 \
  --disable-admission-plugins ValidatingAdmissionWebhook,MutatingAdmissionWebhook >"$work/apiserver.log" 2>&1 &
pids+=($!)
cat >"$work/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:$api_port", insecure-skip-tls-verify: true}}]
users: [{name: admin, user: {token: conformance-token}}]
contexts: [{name: c, context: {cluster: c, user: admin}}]
current-context: c
KC
export KUBECONFIG="$work/kubeconfig"
for _ in $(seq 60); do kubectl get --raw /readyz >/dev/null 2>&1 && break; sleep 1; done
kubectl get --raw /readyz >/dev/null || { tail -20 "$work/apiserver.log" >&2; exit 1; }
echo "apiserver: kube-apiserver $K8S_VERSION on etcd $(etcd --version | head -1 | awk '{print $3}') ready"

(cd "$root" && cargo build --release --quiet)
capi="$root/target/release/capi-render"
fail=0

# 0. `init list-images` against the real clusterctl's, which asks this (still empty)
# cluster what is installed (conformance/list-images.sh).
# shellcheck source=conformance/list-images.sh
. "$here/list-images.sh"

# Every CRD established: one LIST a poll (`kubectl wait --all` GETs each CRD, and
# kubectl's client allows 5 requests a second).
crds_established() {
  local _ states
  for _ in $(seq 240); do
    # A CRD just created may have no conditions yet: it prints False.
    states=$(kubectl get crd -o go-template='{{range .items}}{{$e := "False"}}{{range .status.conditions}}{{if eq .type "Established"}}{{$e = .status}}{{end}}{{end}}{{$e}}{{"\n"}}{{end}}') || return 1
    [ -z "$states" ] || ! grep -qvx True <<<"$states" && return 0
    sleep 0.5
  done
  note "CRDs not established after 120 s"; return 1
}

# CRDs and Namespaces first (and established), then every object; stream.yaml must apply.
apply_stream() { # label stream.yaml [extra kubectl args...]
  local label=$1 stream=$2; shift 2
  python3 - "$stream" "$work/first.yaml" <<'PY'
import sys, yaml
docs = [d for d in yaml.load_all(open(sys.argv[1]), Loader=yaml.CSafeLoader) if d]
yaml.dump_all([d for d in docs if d["kind"] in ("CustomResourceDefinition", "Namespace")], open(sys.argv[2], "w"), Dumper=yaml.CSafeDumper)
PY
  if [ -s "$work/first.yaml" ]; then
    kubectl apply --server-side --force-conflicts -f "$work/first.yaml" >/dev/null
    crds_established || { fail=1; return 1; }
  fi
  if ! kubectl apply --server-side --force-conflicts -f "$stream" "$@" >"$work/apply.log" 2>&1; then
    note "FAIL apiserver $label:"; grep -v 'serverside-applied\|unchanged\|pruned' "$work/apply.log" | head -20 >&2; fail=1; return 1
  fi
}

# 1. A bundle, installed with the README's command, on a fresh API server (nothing
# deletes a namespace here: no controller manager runs).
kubectl apply --server-side -f "$(moddir sigs.k8s.io/cluster-api-operator "$OPERATOR_VERSION")/config/crd/bases/" >/dev/null
crds_established
"$capi" bundle -f "$root/fixtures/bundle/providers.yaml" --repository "$CAPI_CORPUS/repository" -o "$work/bundle" >/dev/null 2>&1
if kubectl apply --server-side -R -f "$work/bundle/configmaps/" >"$work/bundle.log" 2>&1; then
  echo "apiserver: bundle configmaps/ installed with kubectl apply --server-side -R: $(grep -c serverside-applied "$work/bundle.log") objects"
else
  note "FAIL apiserver bundle install:"; head -20 "$work/bundle.log" >&2; fail=1
fi
# 2. cert-manager, then providers v1.9.11 and a fleet.
kubectl apply --server-side -f "$CAPI_CORPUS/repository/cert-manager/v1.19.1/cert-manager.yaml" >/dev/null
crds_established
d="$work/tree"; mkdir -p "$d"
ln -s "$CAPI_CORPUS/repository" "$d/repository"
sed 's/^  version: v1.10.10$/  version: v1.9.11/' "$root/fixtures/gitops/corpus/providers.yaml" >"$d/providers.yaml"
CAPI_CORPUS="$CAPI_CORPUS" bash "$root/benches/fleet-gen.sh" 6 "$d/fleet" >/dev/null
(cd "$d" && "$capi" render -f providers.yaml -f fleet --repository repository -o out --flux --argocd \
  --argocd-repo https://git.example.invalid/fleet.git 2>/dev/null)
kubectl kustomize "$d/out" >"$work/v1.yaml"
# No namespace is created here: the tree's namespaces unit (namespaces/) holds the
# fleet's (ns0-ns9), the provider units their own.
n1=$(grep -c '^kind:' "$work/v1.yaml")
# The tree spans namespaces and cluster-scoped objects: the ApplySet's parent is a
# cluster-scoped object of a parent type of our own (kubectl's ApplySet contract: a CRD
# labelled applyset.kubernetes.io/is-parent-type).
kubectl apply --server-side -f - >/dev/null <<'CRD'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: trees.conformance.capi-render.io
  labels: {applyset.kubernetes.io/is-parent-type: "true"}
spec:
  group: conformance.capi-render.io
  scope: Cluster
  names: {kind: Tree, plural: trees, singular: tree, listKind: TreeList}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
CRD
kubectl wait --for condition=established crd/trees.conformance.capi-render.io --timeout=60s >/dev/null
# kubectl labels the parent with the ApplySet's id (sha256 of name.namespace.kind.group).
tooling="kubectl/$(kubectl version --client -o json | python3 -c 'import json, sys; print(json.load(sys.stdin)["clientVersion"]["gitVersion"])')"
applyset_parent() { # NAME: a Tree parent for one ApplySet
  local id
  id="applyset-$(printf '%s..Tree.conformance.capi-render.io' "$1" | openssl dgst -sha256 -binary | base64 | tr '+/' '-_' | tr -d '=')-v1"
  printf 'apiVersion: conformance.capi-render.io/v1\nkind: Tree\nmetadata:\n  name: %s\n  labels: {applyset.kubernetes.io/id: %s}\n  annotations: {applyset.kubernetes.io/tooling: %s, applyset.kubernetes.io/contains-group-kinds: \"\"}\n' "$1" "$id" "$tooling" |
    kubectl apply --server-side -f - >/dev/null
}
applyset_parent capi-tree
applyset=(--prune --applyset=trees.conformance.capi-render.io/capi-tree)
KUBECTL_APPLYSET=true apply_stream "providers v1.9.11 and 6 Clusters" "$work/v1.yaml" "${applyset[@]}" &&
  echo "apiserver: providers v1.9.11 and 6 Clusters (managed: class units and Clusters): $n1 objects applied"

# Apply NEW (the tree after a change) through the ApplySet APPLYSET with --prune: every
# object of NEW must exist afterwards and exactly the objects OLD had and NEW dropped
# must be gone. Both are looked up with one `kubectl get -f` each.
apply_pruned() { # label old.yaml new.yaml applyset
  local label=$1 old=$2 new=$3 set=$4 pruned total dropped leftover=0 found
  read -r total dropped < <(python3 - "$old" "$new" "$work/dropped.yaml" <<'PY'
import sys, yaml
def load(p):
    return [d for d in yaml.load_all(open(p), Loader=yaml.CSafeLoader) if d]
def key(d):
    m = d["metadata"]
    return d["apiVersion"].split("/")[0] if "/" in d["apiVersion"] else "", d["kind"], m.get("namespace", ""), m["name"]
old, new = load(sys.argv[1]), load(sys.argv[2])
kept = {key(d) for d in new}
gone = [d for d in old if key(d) not in kept]
yaml.dump_all(gone, open(sys.argv[3], "w"), Dumper=yaml.CSafeDumper)
print(len(new), len(gone))
PY
)
  KUBECTL_APPLYSET=true apply_stream "$label" "$new" --prune --applyset="trees.conformance.capi-render.io/$set" || return 0
  pruned=$(grep -c ' pruned$' "$work/apply.log" || true)
  if [ "$dropped" -gt 0 ]; then
    kubectl get -f "$work/dropped.yaml" -o name --ignore-not-found >"$work/leftover" || { note "FAIL apiserver $label: kubectl get of the dropped objects"; fail=1; return 0; }
    leftover=$(wc -l <"$work/leftover")
    sed 's/^/  not pruned: /' "$work/leftover" >&2
  fi
  kubectl get -f "$new" -o name --ignore-not-found >"$work/found" || { note "FAIL apiserver $label: kubectl get of the new objects"; fail=1; return 0; }
  found=$(wc -l <"$work/found")
  if [ "$found" = "$total" ] && [ "$leftover" = 0 ] && [ "$pruned" = "$dropped" ]; then
    echo "apiserver: $label: $total objects applied, $pruned pruned (exactly the $dropped the new tree dropped)"
  else
    note "FAIL apiserver $label: $pruned pruned, $dropped dropped, $leftover left over, $((total - found)) missing"; fail=1
  fi
}

# 3. The upgrade and a Cluster removed, pruned through the ApplySet.
sed -i 's/^  version: v1.9.11$/  version: v1.10.10/' "$d/providers.yaml"
python3 - "$d/fleet/clusters/c000.yaml" <<'PY'
import sys
docs = open(sys.argv[1]).read().split("---\n")
open(sys.argv[1], "w").write("---\n".join(d for d in docs if "name: c000005" not in d))
PY
render_fleet() { (cd "$d" && "$capi" render -f providers.yaml -f fleet --repository repository -o out --flux --argocd \
  --argocd-repo https://git.example.invalid/fleet.git 2>/dev/null); }
render_fleet
kubectl kustomize "$d/out" >"$work/v2.yaml"
apply_pruned "upgrade to v1.10.10 with one Cluster removed" "$work/v1.yaml" "$work/v2.yaml" capi-tree

# A ClusterClass change: a patch of the quick-start class (the control plane's machine
# image) edited in every namespace.
change_patch() { # fleet dir
  sed -i 's|kindest/node:{{ .builtin.controlPlane.version|registry.example.invalid/kindest/node:{{ .builtin.controlPlane.version|' "$1"/classes/*.yaml
}
# 3b. managed (the default): the class unit changes in place (a ClusterClass may), the
# Clusters do not; the new desired objects are in the review files.
change_patch "$d/fleet"
render_fleet
kubectl kustomize "$d/out" >"$work/v3.yaml"
if grep -rqs 'registry.example.invalid' "$d"/out/clusters/*/*/desired/ && ! grep -qs 'registry.example.invalid/kindest/node:v' "$work/v3.yaml"; then
  apply_pruned "managed: ClusterClass patch changed" "$work/v2.yaml" "$work/v3.yaml" capi-tree
else
  note "FAIL apiserver managed: the patch change is not in the review files only"; fail=1
fi

# 3c. flatten, a fleet of its own (namespaces fl0-fl9, its own ApplySet, the providers
# of the tree above): the desired objects are applied; after the same patch change every
# changed template has a new name, every reference moved, and the old templates are
# pruned; no template changes its spec under a name.
f="$work/flat"; mkdir -p "$f"
CAPI_CORPUS="$CAPI_CORPUS" bash "$root/benches/fleet-gen.sh" 6 "$f/fleet" >/dev/null
sed -i 's/namespace: ns/namespace: fl/' "$f"/fleet/classes/*.yaml "$f"/fleet/clusters/*.yaml
# fl0-fl5 (the Clusters' namespaces) come from the tree's namespaces unit.
render_flat() { (cd "$f" && "$capi" render -f fleet --clusters flatten -o out 2>/dev/null); }
render_flat && kubectl kustomize "$f/out" >"$work/f1.yaml"
applyset_parent capi-flat
if KUBECTL_APPLYSET=true apply_stream "flatten: 6 Clusters" "$work/f1.yaml" --prune --applyset=trees.conformance.capi-render.io/capi-flat; then
  echo "apiserver: flatten: 6 Clusters: $(grep -c '^kind:' "$work/f1.yaml") objects applied"
fi
change_patch "$f/fleet"
render_flat && kubectl kustomize "$f/out" >"$work/f2.yaml"
if report=$(python3 - "$work/f1.yaml" "$work/f2.yaml" <<'PY'
import sys, yaml
def load(p):
    return {(d["kind"], d["metadata"].get("namespace", ""), d["metadata"]["name"]): d for d in yaml.load_all(open(p), Loader=yaml.CSafeLoader) if d}
old, new = load(sys.argv[1]), load(sys.argv[2])
tmpl = lambda k: k[0].endswith("Template")
bad = [k for k in old if tmpl(k) and k in new and old[k].get("spec") != new[k].get("spec")]
renamed = [k for k in old if tmpl(k) and k not in new]
def refs(v):
    if isinstance(v, dict):
        if isinstance(v.get("kind"), str) and isinstance(v.get("name"), str):
            yield v["kind"], v["name"]
        else:
            for c in v.values():
                yield from refs(c)
    elif isinstance(v, list):
        for c in v:
            yield from refs(c)
dangling = [(k, r) for k, d in new.items() for r in refs(d.get("spec", {})) if r[0].endswith("Template") and (r[0], k[1], r[1]) not in new]
stale = [(k, r) for k, d in new.items() for r in refs(d.get("spec", {})) if (r[0], k[1], r[1]) in renamed]
if bad or dangling or stale or len(renamed) != 6 or any(d.get("spec", {}).get("topology") for k, d in new.items() if k[0] == "Cluster"):
    print(f"in place: {bad}; dangling: {dangling}; stale: {stale}; renamed: {len(renamed)}")
    sys.exit(1)
print(f"{len(renamed)} changed templates renamed, every reference moved, no template spec changed in place")
PY
); then
  echo "apiserver: flatten: $report"
  apply_pruned "flatten: ClusterClass patch changed" "$work/f1.yaml" "$work/f2.yaml" capi-flat
else
  note "FAIL apiserver flatten: $report"; fail=1
fi

# 4. Flux and Argo CD objects against their CRDs.
kubectl apply --server-side -f "$(moddir github.com/argoproj/argo-cd/v3 "$ARGOCD_VERSION")/manifests/crds/application-crd.yaml" \
  -f "$(moddir github.com/fluxcd/kustomize-controller "$KUSTOMIZE_CONTROLLER_VERSION")/config/crd/bases/kustomize.toolkit.fluxcd.io_kustomizations.yaml" >/dev/null
crds_established
# flux-system and argocd are the GitOps tools' own (their installation creates them, and
# the tree's Kustomizations and Applications live there rather than in the tree's units):
# the tree does not own them.
kubectl create namespace flux-system >/dev/null; kubectl create namespace argocd >/dev/null
gitops=$(cd "$d/out" && find flux argocd -name '*.yaml' ! -name kustomization.yaml | sort | sed 's/^/-f /' | tr '\n' ' ')
# shellcheck disable=SC2086
if (cd "$d/out" && kubectl apply --server-side --dry-run=server $gitops >"$work/gitops.log" 2>&1); then
  echo "apiserver: $(grep -c 'serverside-applied' "$work/gitops.log") Flux Kustomizations and Argo CD Applications accepted (server-side dry run)"
else
  note "FAIL apiserver gitops objects:"; grep -v 'serverside-applied' "$work/gitops.log" | head >&2; fail=1
fi

# 5. --secrets flux-substitute against Flux's own substitution (conformance/secrets.sh).
# shellcheck source=conformance/secrets.sh
. "$here/secrets.sh"
# shellcheck source=conformance/sops.sh
. "$here/sops.sh"

exit $fail
