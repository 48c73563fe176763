#!/usr/bin/env bash
# Fetch the provider release corpus that the corpus tests read (CAPI_CORPUS) from the
# providers' public GitHub releases, for a machine with network access:
#
#   scripts/fetch-corpus.sh [DIR]          # DIR defaults to .corpus (git-ignored)
#   CAPI_CORPUS=$PWD/.corpus cargo test
#
# It writes the clusterctl local-repository layout of the corpus
# (DIR/repository/<label>/<version>/...), the aggregate release asset under DIR/stress/,
# CAPA v2.10.3 under DIR/stress/repository/ and cert-manager v1.19.1, for the versions
# the corpus lists. Not fetched: DIR/e2e-repository/ (the CAPI e2e suite builds it with
# kustomize; it is no release asset), so the tests that read it print a skip notice.
# The project's own corpus was rebuilt from the release tags with a newer kustomize; the
# fetched assets have the same objects but may differ in formatting, and tests that pin
# corpus bytes (golden/typed/corpus.json, the topology goldens) can then differ.
set -euo pipefail

dir=${1:-"$(cd "$(dirname "$0")/.." && pwd)/.corpus"}
capi=https://github.com/kubernetes-sigs/cluster-api/releases/download
capa=https://github.com/kubernetes-sigs/cluster-api-provider-aws/releases/download
certmanager=https://github.com/cert-manager/cert-manager/releases/download

# get URL FILE: download URL to FILE (directories created; fails on HTTP errors).
get() {
  mkdir -p "$(dirname "$2")"
  echo "fetch $1"
  curl -fsSL --retry 3 -o "$2.part" "$1"
  mv "$2.part" "$2"
}

for v in v0.3.25 v0.4.8 v1.9.11 v1.10.9 v1.10.10 v1.11.11; do
  r="$dir/repository"
  get "$capi/$v/core-components.yaml" "$r/cluster-api/$v/core-components.yaml"
  get "$capi/$v/bootstrap-components.yaml" "$r/bootstrap-kubeadm/$v/bootstrap-components.yaml"
  get "$capi/$v/control-plane-components.yaml" "$r/control-plane-kubeadm/$v/control-plane-components.yaml"
  # The docker provider is published as a development provider; a repository needs
  # the clusterctl name.
  get "$capi/$v/infrastructure-components-development.yaml" "$r/infrastructure-docker/$v/infrastructure-components.yaml"
  for p in cluster-api bootstrap-kubeadm control-plane-kubeadm infrastructure-docker; do
    get "$capi/$v/metadata.yaml" "$r/$p/$v/metadata.yaml"
  done
  case $v in
    v0.3.25 | v0.4.8) templates="cluster-template-development.yaml" ;;
    v1.9.11) templates="cluster-template-development.yaml clusterclass-quick-start.yaml" ;;
    *) templates="cluster-template-development.yaml cluster-template-development-mp.yaml cluster-template-in-memory.yaml clusterclass-quick-start.yaml clusterclass-in-memory.yaml" ;;
  esac
  for t in $templates; do
    get "$capi/$v/$t" "$r/infrastructure-docker/$v/$t"
  done
done

for v in v1.10.10 v1.11.11; do
  get "$capi/$v/cluster-api-components.yaml" "$dir/stress/cluster-api-components/cluster-api-components-$v.yaml"
done

aws="$dir/stress/repository/infrastructure-aws/v2.10.3"
for f in infrastructure-components.yaml metadata.yaml cluster-template.yaml \
  cluster-template-eks-clusterclass.yaml cluster-template-eks-fargate.yaml \
  cluster-template-eks-ipv6.yaml cluster-template-eks-machinepool.yaml \
  cluster-template-eks-managedmachinepool-gpu.yaml cluster-template-eks-managedmachinepool-vpccni.yaml \
  cluster-template-eks-managedmachinepool.yaml cluster-template-eks.yaml \
  cluster-template-flatcar-machinepool.yaml cluster-template-flatcar.yaml \
  cluster-template-machinepool.yaml cluster-template-multitenancy-clusterclass.yaml \
  cluster-template-rosa-machinepool.yaml cluster-template-rosa-role-config.yaml \
  cluster-template-rosa.yaml cluster-template-simple-clusterclass.yaml rosa-network.yaml; do
  get "$capa/v2.10.3/$f" "$aws/$f"
done

get "$certmanager/v1.19.1/cert-manager.yaml" "$dir/repository/cert-manager/v1.19.1/cert-manager.yaml"

cat >"$dir/clusterctl.yaml" <<'YAML'
# clusterctl configuration for this corpus; URLs are relative to this file.
providers:
  - name: cluster-api
    type: CoreProvider
    url: repository/cluster-api/latest/core-components.yaml
  - name: kubeadm
    type: BootstrapProvider
    url: repository/bootstrap-kubeadm/latest/bootstrap-components.yaml
  - name: kubeadm
    type: ControlPlaneProvider
    url: repository/control-plane-kubeadm/latest/control-plane-components.yaml
  - name: docker
    type: InfrastructureProvider
    url: repository/infrastructure-docker/latest/infrastructure-components.yaml
  - name: aws
    type: InfrastructureProvider
    url: stress/repository/infrastructure-aws/v2.10.3/infrastructure-components.yaml
AWS_B64ENCODED_CREDENTIALS: "Cg=="
CLUSTER_TOPOLOGY: "true"
YAML

echo "corpus in $dir; run the tests with: CAPI_CORPUS=$dir cargo test"
