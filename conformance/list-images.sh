# Sourced by conformance/apiserver.sh once its API server is ready (KUBECONFIG set, nothing
# installed): `capi-render init list-images` against the real `clusterctl init list-images`
# of v1.10.10 and v1.14.2, which needs a management cluster to ask whether cert-manager and
# a core provider are installed; the empty API server is that cluster. stdout, stderr and
# the exit status must all be the same, except for capi-render's own `  hint: ` lines
# after an error (the "did you mean" and the list of what exists, which clusterctl lacks).
#
# Needs CLUSTERCTL (v1.10.10) and CLUSTERCTL_V114 (v1.14.2), as conformance/run.sh passes
# them; without them the comparison is skipped with a note. Uses $capi, $work, $CAPI_CORPUS,
# note() and fail of apiserver.sh.

# li_case NAME TOOL CLUSTERCTL-VERSION CONFIG ARGS...: one comparison, started in the
# background in a directory of its own (clusterctl waits on the API server most of a
# case's 10 s, so the cases run six at a time); li_report compares them all, in order.
li_case() {
  local name=$1 tool=$2 ccv=$3 cfg=$4 d; shift 4
  li_cases=$((li_cases + 1)); d="$work/li/$li_cases"
  mkdir -p "$d/home" "$d/xdg"; printf '%s\n' "$name" "$ccv" >"$d/case"
  (
    rc_ref=0; env -i PATH="$PATH" HOME="$d/home" XDG_CONFIG_HOME="$d/xdg" CLUSTERCTL_DISABLE_VERSIONCHECK=true \
      "$tool" init list-images --kubeconfig "$KUBECONFIG" --config "$cfg" "$@" >"$d/ref.out" 2>"$d/ref.err" || rc_ref=$?
    rc_ours=0; env -i PATH="$PATH" "$capi" init list-images --clusterctl-version "$ccv" --config "$cfg" "$@" \
      >"$d/ours.out" 2>"$d/ours.all" || rc_ours=$?
    grep -v '^  hint: ' "$d/ours.all" >"$d/ours.err" || true
    echo "$rc_ref $rc_ours" >"$d/rc"
  ) &
  li_pids+=($!)
  if [ ${#li_pids[@]} -ge 6 ]; then wait "${li_pids[@]}"; li_pids=(); fi
}

li_report() {
  local i d name ccv rc_ref rc_ours
  [ ${#li_pids[@]} -eq 0 ] || wait "${li_pids[@]}"
  li_pids=()
  for i in $(seq "$li_cases"); do
    d="$work/li/$i"; { read -r name; read -r ccv; } <"$d/case"; read -r rc_ref rc_ours <"$d/rc"
    if [ "$rc_ref" != "$rc_ours" ] || ! cmp -s "$d/ref.out" "$d/ours.out" || ! cmp -s "$d/ref.err" "$d/ours.err"; then
      note "DIFF list-images $name (clusterctl $ccv): exit $rc_ref vs $rc_ours"
      diff -u "$d/ref.out" "$d/ours.out" >&2 || true
      diff -u "$d/ref.err" "$d/ours.err" >&2 || true
      li_diffs=$((li_diffs + 1))
    fi
  done
}

# li_config FILE VERSION CERT-MANAGER-VERSION [EXTRA]: the four corpus providers at VERSION
# (`latest` for the repository's newest) and cert-manager, by absolute path.
li_config() {
  local f=$1 v=$2 cm=$3 r="$CAPI_CORPUS/repository"
  printf 'providers:\n  - {name: cluster-api, type: CoreProvider, url: %s}\n  - {name: kubeadm, type: BootstrapProvider, url: %s}\n  - {name: kubeadm, type: ControlPlaneProvider, url: %s}\n  - {name: docker, type: InfrastructureProvider, url: %s}\ncert-manager:\n  url: %s\n%s' \
    "$r/cluster-api/$v/core-components.yaml" "$r/bootstrap-kubeadm/$v/bootstrap-components.yaml" \
    "$r/control-plane-kubeadm/$v/control-plane-components.yaml" "$r/infrastructure-docker/$v/infrastructure-components.yaml" \
    "$r/cert-manager/$cm/cert-manager.yaml" "${4:-}" >"$f"
}

if [ -n "${CLUSTERCTL:-}" ] && [ -n "${CLUSTERCTL_V114:-}" ]; then
  li_cases=0; li_diffs=0; li_pids=(); c="$work/li-config"
  all=(--core cluster-api -b kubeadm -c kubeadm -i docker)
  for v in v1.9.11 v1.10.9 v1.10.10; do
    li_config "$c-$v.yaml" "$v" v1.19.1; li_case "$v" "$CLUSTERCTL" v1.10 "$c-$v.yaml" "${all[@]}"
  done
  for v in v1.10.10 v1.11.11 v1.13.6 v1.14.2; do
    li_config "$c-$v.yaml" "$v" v1.21.1; li_case "$v" "$CLUSTERCTL_V114" v1.14 "$c-$v.yaml" "${all[@]}"
  done
  # No -b/-c: init adds the kubeadm providers of a first init itself.
  li_case "v1.14.2 defaults" "$CLUSTERCTL_V114" v1.14 "$c-v1.14.2.yaml" -i docker
  # `latest` URLs and an explicit version on the command line.
  li_config "$c-latest.yaml" latest v1.21.1; li_case "latest" "$CLUSTERCTL_V114" v1.14 "$c-latest.yaml" -i docker:v1.13.6
  li_config "$c-latest10.yaml" latest v1.19.1; li_case "latest" "$CLUSTERCTL" v1.10 "$c-latest10.yaml" -i docker:v1.10.10
  # Image overrides (all, a component, `name` from v1.13 on) and a cert-manager that is
  # provisioned outside clusterctl.
  li_config "$c-images.yaml" v1.14.2 v1.21.1 'images:
  all: {repository: mirror.example.com/capi}
  cert-manager: {repository: mirror.example.com/jetstack, tag: v9}
  infrastructure-docker: {name: capd, tag: dev}
'
  li_case "image overrides" "$CLUSTERCTL_V114" v1.14 "$c-images.yaml" "${all[@]}"
  li_config "$c-ext.yaml" v1.14.2 v1.21.1 '  externallyProvisioned: true
'
  li_case "cert-manager externally provisioned" "$CLUSTERCTL_V114" v1.14 "$c-ext.yaml" "${all[@]}"
  # Errors: a cert-manager `latest` with no metadata.yaml, an unknown provider version.
  li_config "$c-cmlatest.yaml" v1.14.2 latest; li_case "cert-manager latest" "$CLUSTERCTL_V114" v1.14 "$c-cmlatest.yaml" "${all[@]}"
  li_case "unknown version" "$CLUSTERCTL_V114" v1.14 "$c-v1.14.2.yaml" -i docker:v1.14.99
  li_case "opt out of kubeadm" "$CLUSTERCTL_V114" v1.14 "$c-v1.14.2.yaml" -b - -c - -i docker
  li_case "'-' core" "$CLUSTERCTL_V114" v1.14 "$c-v1.14.2.yaml" --core - -i docker
  li_case "unknown provider" "$CLUSTERCTL_V114" v1.14 "$c-v1.14.2.yaml" -i dockr
  li_case "v1beta2 providers" "$CLUSTERCTL" v1.10 "$c-v1.14.2.yaml" "${all[@]}"
  li_case "no config file" "$CLUSTERCTL_V114" v1.14 "$c-missing.yaml" -i docker
  li_case "no config file" "$CLUSTERCTL" v1.10 "$c-missing.yaml" -i docker
  li_case "no config file, relative" "$CLUSTERCTL_V114" v1.14 ./li-missing.yaml -i docker
  li_report
  echo "list-images: $li_cases cases against the real clusterctl init list-images (v1.10.10 and v1.14.2) on an empty API server, $li_diffs differences"
  [ "$li_diffs" = 0 ] || fail=1
else
  note "list-images: skipped (CLUSTERCTL and CLUSTERCTL_V114 unset: conformance/run.sh sets them)"
fi
