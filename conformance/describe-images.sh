# Sourced by conformance/run.sh and conformance/bundle.sh: clusterctl's images for the four
# corpus providers at one version, offline. `clusterctl init list-images` needs a management
# cluster, so the reference is the union of `generate provider --describe`'s image lists.

# corpus_providers_config REPOSITORY VERSION FILE: a clusterctl config naming the four
# providers of REPOSITORY at VERSION by absolute path.
corpus_providers_config() {
  local r=$1 v=$2
  printf 'providers:\n  - {name: cluster-api, type: CoreProvider, url: %s}\n  - {name: kubeadm, type: BootstrapProvider, url: %s}\n  - {name: kubeadm, type: ControlPlaneProvider, url: %s}\n  - {name: docker, type: InfrastructureProvider, url: %s}\n' \
    "$r/cluster-api/$v/core-components.yaml" "$r/bootstrap-kubeadm/$v/bootstrap-components.yaml" \
    "$r/control-plane-kubeadm/$v/control-plane-components.yaml" "$r/infrastructure-docker/$v/infrastructure-components.yaml" >"$3"
}

# describe_images CLUSTERCTL CONFIG WORK: append each provider's `--describe` images to
# stdout (WORK holds the isolated home and XDG directories).
describe_images() {
  local tool=$1 cfg=$2 work=$3 p
  local -a pa
  for p in "--core cluster-api" "-b kubeadm" "-c kubeadm" "-i docker"; do
    read -r -a pa <<<"$p"
    env -i PATH="$PATH" HOME="$work/home" XDG_CONFIG_HOME="$work/xdg" CLUSTERCTL_DISABLE_VERSIONCHECK=true \
      "$tool" generate provider "${pa[@]}" --describe --config "$cfg" \
      | awk '/^Images:/{f=1;next} /^[^ ]/{f=0} f && /^  - /{print $2}'
  done
}
