#!/usr/bin/env bash
# Conformance: capi-render against the real clusterctl v1.14.2 (the default) and v1.10.10
# (`--clusterctl-version v1.10`, and `topology plan`), and our Go oracles.
#
#   conformance/run.sh            regenerate every golden file into a scratch directory,
#                                 fail if any committed golden differs (stale or hand-edited),
#                                 then compare capi-render with clusterctl on the fixtures
#                                 and on every provider/version/template of $CAPI_CORPUS.
#   conformance/run.sh update     regenerate the committed golden files in place.
#
# Needs Go (the module proxy) to install clusterctl v1.10.10 when it is missing, and to
# build clusterctl v1.14.2 through conformance/clusterctl-v1.14/ (cached outside the
# checkout by source hash).
# Golden files only ever come from the real tools, never from capi-render.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
mode=${1:-check}
CAPI_CORPUS=${CAPI_CORPUS:-$root/../shared/corpus}
CAPI_CORPUS=$(cd "$CAPI_CORPUS" && pwd)
CLUSTERCTL_VERSION=v1.10.10

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/xdg"

# --- tools ----------------------------------------------------------------------------
gobin=$(go env GOPATH)/bin
clusterctl=${CLUSTERCTL:-$gobin/clusterctl}
have_version() { go version -m "$1" 2>/dev/null | grep -q "mod[[:space:]]*sigs.k8s.io/cluster-api[[:space:]]*$CLUSTERCTL_VERSION"; }
if ! have_version "$clusterctl"; then
  echo "installing clusterctl $CLUSTERCTL_VERSION with go install" >&2
  GOBIN="$work/bin" go install "sigs.k8s.io/cluster-api/cmd/clusterctl@$CLUSTERCTL_VERSION"
  mkdir -p "$gobin"; cp "$work/bin/clusterctl" "$gobin/clusterctl"; clusterctl="$gobin/clusterctl"
fi
# clusterctl v1.14.2 through its wrapper module (its own go.mod has replace directives).
cc114_src="$here/clusterctl-v1.14"
cc114_hash=$( (cd "$cc114_src" && cat go.mod go.sum main.go) | sha256sum | cut -c1-16)
cc114_cache=${XDG_CACHE_HOME:-$HOME/.cache}/capi-render/clusterctl-v1.14
clusterctl114=${CLUSTERCTL_V114:-$cc114_cache/clusterctl-$cc114_hash}
if [ ! -x "$clusterctl114" ]; then
  echo "building clusterctl v1.14.2 (conformance/clusterctl-v1.14)" >&2
  mkdir -p "$cc114_cache"
  (cd "$cc114_src" && go build -o "$clusterctl114.tmp" .) && mv "$clusterctl114.tmp" "$clusterctl114"
fi
# The release binary (static glibc on Linux; scripts/build-release.sh), so
# the binary the benchmarks time is the one checked against clusterctl here.
capi=$("$root/scripts/build-release.sh")

# Run a tool in an isolated environment: no config discovery, no version check,
# only the variables the case names.
run_tool() { # tool outdir name envstring args...
  local tool=$1 out=$2 name=$3 envs=$4; shift 4
  local -a envv=()
  [ "$envs" != "-" ] && read -r -a envv <<<"$envs"
  set +e
  env -i PATH="$PATH" HOME="$work/home" XDG_CONFIG_HOME="$work/xdg" CLUSTERCTL_DISABLE_VERSIONCHECK=true \
    "${envv[@]}" "$tool" "$@" >"$out/$name.stdout" 2>"$out/$name.stderr" </dev/null
  echo $? >"$out/$name.status"
  set -e
}

# Rewrite a fixture config's relative provider URLs to absolute ones (clusterctl needs them).
absolute_config() { # in out
  sed -E "s#^([[:space:]]*url:[[:space:]]*)(repository/)#\1$root/fixtures/\2#" "$1" >"$2"
}

normalise() { # file: machine paths → placeholders
  # clusterctl v1.14.2 lists its compatible contracts from a Go set in map order
  # (`compatibleContracts.UnsortedList()`), so either order comes out run to run; the
  # goldens (and capi-render) hold one of them.
  sed -i -e "s#$root/fixtures#@FIXTURES@#g" -e "s#$CAPI_CORPUS#@CORPUS@#g" \
    -e 's/implementing v1beta1, v1beta2 contract versions/implementing v1beta2, v1beta1 contract versions/' "$1"
}

fail=0
note() { echo "$*" >&2; }
# Wall time of each step, on stderr (CI's log shows where its time goes).
t_step=$SECONDS
took() { note "conformance: $1: $((SECONDS - t_step)) s"; t_step=$SECONDS; }

# --- 1. fixture cases -> golden/clusterctl (v1.10.10) and golden/clusterctl-v1.14 (v1.14.2)
# Each reference runs every case; capi-render runs it with the matching --clusterctl-version.
for cfg in "$root"/fixtures/clusterctl*.yaml; do absolute_config "$cfg" "$work/$(basename "$cfg")"; done
ncases=0
fixture_cases() { # reference-tool golden-dir ours-dir clusterctl-version
  local tool=$1 gold=$2 ours=$3 ccv=$4 name envs cfg args
  mkdir -p "$gold" "$ours"
  while IFS='|' read -r name envs cfg args; do
    name=$(echo "$name" | xargs); envs=$(echo "$envs" | xargs); cfg=$(echo "$cfg" | xargs)
    [ -z "$name" ] && continue; case "$name" in \#*) continue;; esac
    read -r -a argv <<<"$args"
    run_tool "$tool" "$gold" "$name" "$envs" "${argv[@]}" --config "$work/$cfg"
    for f in stdout stderr; do normalise "$gold/$name.$f"; done
    run_tool "$capi" "$ours" "$name" "$envs" "${argv[@]}" --config "$work/$cfg" --clusterctl-version "$ccv"
    normalise "$ours/$name.stdout"
    ncases=$((ncases + 1))
  done <"$root/fixtures/cases.txt"
}
fixture_cases "$clusterctl" "$work/golden/clusterctl" "$work/ours" v1.10
fixture_cases "$clusterctl114" "$work/golden/clusterctl-v1.14" "$work/ours-v1.14" v1.14
# Each release's built-in provider list (tests/builtin_providers.rs reads these).
mkdir -p "$work/golden/clusterctl-providers"
run_tool "$clusterctl" "$work/golden/clusterctl-providers" v1.10 - config repositories
run_tool "$clusterctl114" "$work/golden/clusterctl-providers" v1.14 - config repositories
rm -f "$work/golden/clusterctl-providers"/*.stderr "$work/golden/clusterctl-providers"/*.status
took "fixture cases (both tools)"

# --- 2. our Go oracles (yaml, envsubst, typed) -----------------------------------------
for regen in "$here"/regen-*.sh; do
  [ -x "$regen" ] && "$regen" "$work/golden"
done
took "Go oracles (regen-*.sh)"
# cluster-api-operator v0.29.0's own customisation code and Fetch phase (builds a scratch copy
# of the module once, cached in ~/.cache/capi-render/operator-oracle/).
"$here/operator-customize.sh" "$work/golden"
took operator-customize.sh
"$here/gotmpl.sh" "$work/golden"   # Go text/template + sprig goldens (golden/gotmpl)
took gotmpl.sh

# ClusterClass variables (golden/topology-variables, from `clusterctl alpha topology plan`).
CLUSTERCTL="$clusterctl" CAPI_CORPUS="$CAPI_CORPUS" "$here/topology-variables.sh" "$mode" || fail=1
took topology-variables.sh

# The typed models are generated data that live in src/typed/, not in golden/.
if [ "$mode" = update ]; then
  for model_new in "$work/golden"/typed-model*.json; do
    [ -f "$model_new" ] && mv "$model_new" "$root/src/typed/$(basename "$model_new" | sed 's/^typed-//')"
  done
  rm -rf "$root/golden/clusterctl" "$root/golden/clusterctl-v1.14" "$root/golden/clusterctl-providers"; mkdir -p "$root/golden"
  cp -r "$work/golden/." "$root/golden/"
  # Goldens that their own scripts rewrite (and check for staleness in check mode).
  CAPI_CORPUS="$CAPI_CORPUS" "$here/topology-v1beta2.sh" update || fail=1
  CAPI_CORPUS="$CAPI_CORPUS" "$here/impact.sh" update || fail=1
  CAPI_RENDER="$capi" CAPI_CORPUS="$CAPI_CORPUS" "$here/admission.sh" update || fail=1
  echo "golden files regenerated ($ncases clusterctl cases)"
  exit 0
fi

for model_new in "$work/golden"/typed-model*.json; do
  [ -f "$model_new" ] || continue
  model_old="$root/src/typed/$(basename "$model_new" | sed 's/^typed-//')"
  if ! cmp -s "$model_new" "$model_old"; then note "FAIL: $model_old differs from typegen's output"; fail=1; fi
  rm -f "$model_new"
done
# topology*, impact, admission: their scripts below regenerate and compare them.
if ! diff -r -x topology-variables -x topology -x topology-v1beta2 -x impact -x admission "$root/golden" "$work/golden" >"$work/golden.diff"; then
  note "FAIL: committed golden files differ from what the real tools produce now:"; head -50 "$work/golden.diff" >&2; fail=1
fi

# --- 3. capi-render vs clusterctl on the fixtures ----------------------------------------
compare() { # dirA dirB name -> 0 if same status class and same stdout
  local a=$1 b=$2 n=$3 sa sb
  sa=$(cat "$a/$n.status"); sb=$(cat "$b/$n.status")
  if { [ "$sa" = 0 ] && [ "$sb" != 0 ]; } || { [ "$sa" != 0 ] && [ "$sb" = 0 ]; }; then
    note "DIFF $n: clusterctl exit $sa, capi-render exit $sb"; sed 's/^/  clusterctl: /' "$a/$n.stderr" | head -3 >&2; sed 's/^/  capi-render: /' "$b/$n.stderr" | head -3 >&2; return 1
  fi
  if [ "$sa" = 0 ] && ! cmp -s "$a/$n.stdout" "$b/$n.stdout"; then
    note "DIFF $n: stdout differs"; diff -u "$a/$n.stdout" "$b/$n.stdout" | head -30 >&2; return 1
  fi
  return 0
}
fixture_diffs=0
for s in "$work/golden/clusterctl"/*.status; do
  n=$(basename "$s" .status)
  compare "$work/golden/clusterctl" "$work/ours" "$n" || fixture_diffs=$((fixture_diffs + 1))
done
for s in "$work/golden/clusterctl-v1.14"/*.status; do
  n=$(basename "$s" .status)
  compare "$work/golden/clusterctl-v1.14" "$work/ours-v1.14" "$n" || fixture_diffs=$((fixture_diffs + 1))
done
echo "fixtures: $ncases cases (clusterctl v1.10.10 and v1.14.2), $fixture_diffs differences"

# --- 4. the corpus ----------------------------------------------------------------------
corpus_env="AWS_B64ENCODED_CREDENTIALS=Cg== KUBERNETES_VERSION=v1.32.0 CNI_RESOURCES=cni DOCKER_POD_CIDRS=192.168.0.0/16 DOCKER_SERVICE_CIDRS=10.128.0.0/12 DOCKER_SERVICE_DOMAIN=cluster.local DOCKER_POD_IPV6_CIDRS=fd00:100:96::/48 DOCKER_SERVICE_IPV6_CIDRS=fd00:100:64::/108 AWS_REGION=eu-west-1 AWS_SSH_KEY_NAME=key AWS_CONTROL_PLANE_MACHINE_TYPE=t3.large AWS_NODE_MACHINE_TYPE=t3.large AWS_AVAILABILITY_ZONE=eu-west-1a AWS_S3_BUCKET_NAME=bucket AWS_ACCOUNT_ID=123456789012 ACCOUNT_ROLES_PREFIX=acc OPERATOR_ROLES_PREFIX=op OIDC_CONFIG_ID=oidc OPENSHIFT_VERSION=4.15.0 PRIVATE_SUBNET_ID=subnet-1 PUBLIC_SUBNET_ID=subnet-2 COREOS_EC2_HOSTNAME=host CLUSTER_CLASS_NAME=cc MULTI_TENANCY_JUMP_IDENTITY_NAME=jump MULTI_TENANCY_JUMP_ROLE_ARN=arn:jump MULTI_TENANCY_NESTED_IDENTITY_NAME=nested MULTI_TENANCY_NESTED_ROLE_ARN=arn:nested SERVER=https://127.0.0.1:6443 TOKEN=token"
type_of() { case "$1" in cluster-api) echo "CoreProvider core";; bootstrap-*) echo "BootstrapProvider b";; control-plane-*) echo "ControlPlaneProvider c";; infrastructure-*) echo "InfrastructureProvider i";; esac; }
name_of() { case "$1" in cluster-api) echo cluster-api;; *) echo "$1" | sed -E 's/^(bootstrap|control-plane|infrastructure)-//';; esac; }
corpus_cases=0; corpus_diffs=0
# One reference over the whole corpus: every provider release in both namespace variants
# (and "latest", through a `latest` URL), every docker template rendered and listed.
corpus_run() { # reference-tool clusterctl-dir capi-dir clusterctl-version
  local tool=$1 cc=$2 cr=$3 ccv=$4 repo pdir label ptype flag pname vdir ver comp cfg key fl variant tpl flavor n
  local -a extra args
  mkdir -p "$cc" "$cr"
  for repo in "$CAPI_CORPUS/repository" "$CAPI_CORPUS/e2e-repository" "$CAPI_CORPUS/stress/repository"; do
    for pdir in "$repo"/*/; do
      label=$(basename "$pdir")
      # cert-manager is not a provider: clusterctl installs it itself.
      [ "$label" = cert-manager ] && continue
      read -r ptype flag <<<"$(type_of "$label")"; pname=$(name_of "$label")
      if [ "$flag" = core ]; then fl=--core; else fl=-$flag; fi
      for vdir in "$pdir"*/ "$pdir"latest/; do
        ver=$(basename "$vdir")
        if [ "$ver" = latest ]; then
          [ "$repo" = "$CAPI_CORPUS/repository" ] || continue
          comp=$(cd "$pdir$(ls "$pdir" | head -1)" && ls *components*.yaml | head -1)
        else
          comp=$(cd "$vdir" && ls *components*.yaml | head -1)
        fi
        cfg="$work/corpus-$label-$ver.yaml"; key=$(basename "$repo")-$label-$ver
        printf 'providers:\n  - name: %s\n    type: %s\n    url: %s\n' "$pname" "$ptype" "$vdir$comp" >"$cfg"
        # "latest": no version given, the URL's `latest` resolved by each tool.
        local pv=$pname:$ver; [ "$ver" = latest ] && pv=$pname
        for variant in plain ns; do
          extra=(); [ $variant = ns ] && extra=(-n capi-conformance)
          run_tool "$tool" "$cc" "$key-$variant" "$corpus_env" generate provider "$fl" "$pv" "${extra[@]}" --config "$cfg"
          run_tool "$capi" "$cr" "$key-$variant" "$corpus_env" generate provider "$fl" "$pv" "${extra[@]}" --config "$cfg" --clusterctl-version "$ccv"
          corpus_cases=$((corpus_cases + 1)); compare "$cc" "$cr" "$key-$variant" || corpus_diffs=$((corpus_diffs + 1))
        done
        [ "$ptype" = InfrastructureProvider ] && [ "$ver" != latest ] || continue
        for tpl in "$vdir"cluster-template*.yaml; do
          [ -e "$tpl" ] || continue
          flavor=$(basename "$tpl" .yaml); flavor=${flavor#cluster-template}; flavor=${flavor#-}
          for variant in render vars; do
            extra=(); [ $variant = vars ] && extra=(--list-variables)
            n="$key-tpl-${flavor:-default}-$variant"
            args=(generate cluster conformance-cluster -i "$pname:$ver" -n capi-conformance --worker-machine-count 2 --config "$cfg")
            [ -n "$flavor" ] && args+=(-f "$flavor")
            run_tool "$tool" "$cc" "$n" "$corpus_env" "${args[@]}" "${extra[@]}"
            run_tool "$capi" "$cr" "$n" "$corpus_env" "${args[@]}" "${extra[@]}" --clusterctl-version "$ccv"
            corpus_cases=$((corpus_cases + 1)); compare "$cc" "$cr" "$n" || corpus_diffs=$((corpus_diffs + 1))
          done
        done
      done
    done
  done
}
cc="$work/corpus-clusterctl"; cr="$work/corpus-capi"
corpus_run "$clusterctl" "$cc" "$cr" v1.10
corpus_run "$clusterctl114" "$work/corpus-clusterctl-v1.14" "$work/corpus-capi-v1.14" v1.14
# --- 5. init list-images: against the real clusterctl, which needs a cluster to ask what
# is installed, in apiserver.sh (conformance/list-images.sh) ------------------------------
took "corpus (both tools)"
CAPI_CORPUS="$CAPI_CORPUS" "$here/bundle.sh" "$capi" "$clusterctl" || corpus_diffs=$((corpus_diffs + 1))
took bundle.sh

rendered=$(grep -lx 0 "$cc"/*.status | wc -l)
rendered114=$(grep -lx 0 "$work/corpus-clusterctl-v1.14"/*.status | wc -l)
echo "corpus: $corpus_cases cases ($rendered rendered by clusterctl v1.10.10, $rendered114 by v1.14.2, the rest are errors in both), $corpus_diffs differences"

bash "$here/kustomize.sh" || fail=1  # GitOps trees and the KRM function against kustomize
took kustomize.sh
# Flux Kustomizations and Argo CD Applications against the real Flux and Argo CD CRDs.
CAPI_CORPUS="$CAPI_CORPUS" bash "$here/gitops-crds.sh" || fail=1
took gitops-crds.sh
CAPI_RENDER="$capi" CAPI_CORPUS="$CAPI_CORPUS" bash "$here/crd-validate.sh" || fail=1
took crd-validate.sh
# The trees, an upgrade with pruning, the GitOps objects and a bundle on a real API server.
CLUSTERCTL="$clusterctl" CLUSTERCTL_V114="$clusterctl114" CAPI_CORPUS="$CAPI_CORPUS" bash "$here/apiserver.sh" || fail=1
took apiserver.sh
CLUSTERCTL="$clusterctl" CAPI_CORPUS="$CAPI_CORPUS" "$here/topology.sh" "$mode" || fail=1
took topology.sh
# v1beta2 topologies against CAPI v1.14.2's exp/topology/desiredstate (golden/topology-v1beta2).
CAPI_CORPUS="$CAPI_CORPUS" "$here/topology-v1beta2.sh" "$mode" || fail=1
took topology-v1beta2.sh
# Admission (issue 58): refusals and admissions against CAPI v1.14.2's CRD schema and
# webhooks (golden/admission).
CAPI_RENDER="$capi" CAPI_CORPUS="$CAPI_CORPUS" "$here/admission.sh" "$mode" || fail=1
took admission.sh
# `diff`'s rollout impact against CAPI v1.14.2's up-to-date code (golden/impact).
CAPI_CORPUS="$CAPI_CORPUS" "$here/impact.sh" "$mode" || fail=1
took impact.sh
# External patches: capi-render and Cluster API's runtime client against the test extension.
CAPI_CORPUS="$CAPI_CORPUS" "$here/runtime-sdk.sh" || fail=1
took runtime-sdk.sh

[ "$fixture_diffs" = 0 ] && [ "$corpus_diffs" = 0 ] && [ "$fail" = 0 ] || { echo "conformance: FAILED"; exit 1; }
echo "conformance: OK"
