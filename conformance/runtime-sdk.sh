#!/usr/bin/env bash
# Conformance of external patches: `capi-render render --runtime-extension` against the
# desired-state oracle built with Cluster API v1.14.2's own runtime client
# (conformance/oracle-runtime.sh), both calling the same running test extension
# (conformance/runtime-extension.sh: Cluster API's runtime server and topologymutation
# helpers), on the e2e quick-start-runtimesdk ClusterClass of the corpus and on cases of
# our own (conformance/runtime-sdk/); the corpus's v1beta1 classes with external patches
# (e2e quick-start-runtimesdk of v1.10.10, quick-start-runtimesdk-v1beta1 of v1.11.11,
# in-memory of v1.10.10) with v1beta1 Clusters under `--capi-version v1.14.2`.
#
#   conformance/runtime-sdk.sh     every case: both tools' desired objects equal after
#                                  normalising generated name suffixes and document
#                                  order, or both failing with the extension's message
#
# Needs Go (the module proxy) and the corpus ($CAPI_CORPUS, default ../shared/corpus).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
CAPI_CORPUS=${CAPI_CORPUS:-$root/../shared/corpus}
cases="$here/runtime-sdk"
work=$(mktemp -d)
ext_pid=""
trap '[ -n "$ext_pid" ] && kill "$ext_pid" 2>/dev/null; rm -rf "$work"' EXIT

oracle=$("$here/oracle-runtime.sh")
(cd "$root" && cargo build --release --quiet)
capi="${CARGO_TARGET_DIR:-$root/target}/release/capi-render"
read -r url ca ext_pid < <("$here/runtime-extension.sh" "$work/ext")
name=k8s-upgrade-with-runtimesdk

# The corpus class with its defaults substituted, as clusterctl would.
class="$work/class.yaml"
sed -E 's/\$\{[A-Z_]+:-([^}]*)\}/\1/g' \
  "$CAPI_CORPUS/e2e-repository/infrastructure-docker/v1.11.11/clusterclass-quick-start-runtimesdk.yaml" >"$class"
# The corpus's v1beta1 classes with external patches, for v1beta1 Clusters under a core
# provider of v1.14 (`--capi-version v1.14.2`), with EXTENSION_CONFIG_NAME set as the
# ExtensionConfig the case gives (then the other defaults, as clusterctl would).
e2e="$CAPI_CORPUS/e2e-repository/infrastructure-docker"
subst() { # file extension-name -> the file with its variables substituted
  sed -E -e "s/\\$\{EXTENSION_CONFIG_NAME:-[^}]*\}/$2/g" -e 's/\$\{[A-Z_]+:-([^}]*)\}/\1/g' "$1"
}
class_v1beta1="$work/class-v1beta1.yaml"
subst "$e2e/v1.10.10/clusterclass-quick-start-runtimesdk.yaml" "$name" >"$class_v1beta1"
class_v1beta1_v111="$work/class-v1beta1-v1.11.yaml"
subst "$e2e/v1.11.11/clusterclass-quick-start-runtimesdk-v1beta1.yaml" "$name" >"$class_v1beta1_v111"
class_in_memory="$work/class-in-memory.yaml"
subst "$e2e/v1.10.10/clusterclass-in-memory.yaml" scale >"$class_in_memory"
# Mixed: an inline patch before the external one and one after it, with an inline variable.
mixed="$work/mixed.yaml"
python3 - "$class" "$cases/mixed-patches.txt" "$cases/mixed-patches-after.txt" "$mixed" <<'PY'
import sys
text, before, after = (open(p).read() for p in sys.argv[1:4])
head, sep, rest = text.partition("\n---\n")
head = head.replace("  patches:\n", "  patches:\n" + before, 1) + "\n" + after.rstrip("\n")
open(sys.argv[4], "w").write(head + sep + rest)
PY

norm() { # file -> normalised text (generated suffixes, document order)
  sed -E 's/-[bcdfghjklmnpqrstvwxz2456789]{5}([^a-z0-9]|$)/-XXXXX\1/g' "$1" | python3 -c '
import sys
docs = [d.strip("\n") for d in ("\n" + sys.stdin.read()).split("\n---\n")]
print("\n---\n".join(sorted(d for d in docs if d)))'
}

status=0; n=0; same=0
# name | class | cluster | extensionconfig | expected error text ("" = renders) [| flags of
# both tools]. The extension is the ExtensionConfig's name, pointed at the test extension.
while IFS='|' read -r case cls cluster cfg want flags; do
  case=$(echo "$case" | xargs); cls=$(echo "$cls" | xargs); cluster=$(echo "$cluster" | xargs)
  cfg=$(echo "$cfg" | xargs); want=$(echo "$want" | sed -E 's/^ +//; s/ +$//')
  read -r -a fl <<<"${flags:-}"
  ext=$(sed -n 's/^  name: //p' "$cases/$cfg" | head -1)
  n=$((n + 1))
  files=(-f "$cls" -f "$cases/$cluster" -f "$cases/$cfg")
  set +e
  # The oracle admits the inputs first (the v1.14.2 CRDs and webhooks), as Cluster API would.
  "$oracle" --crds "$root/src/admission/crds-v1.14.2.yaml" ${fl[@]+"${fl[@]}"} "${files[@]}" --extension "$ext=$url" --extension-ca "$ca" >"$work/go.yaml" 2>"$work/go.err"; go_rc=$?
  env -i PATH="$PATH" "$capi" render --stdout -q --clusters desired ${fl[@]+"${fl[@]}"} "${files[@]}" \
    --runtime-extension "$ext=$url" --runtime-extension-ca "$ca" >"$work/ours.yaml" 2>"$work/ours.err"; rc=$?
  set -e
  if [ -z "$want" ]; then
    if [ $go_rc -ne 0 ] || [ $rc -ne 0 ]; then
      echo "FAIL $case: oracle exit $go_rc, capi-render exit $rc"; cat "$work/go.err" "$work/ours.err"; status=1; continue
    fi
    if diff -u --label "oracle/$case" --label "capi-render/$case" <(norm "$work/go.yaml") <(norm "$work/ours.yaml") >"$work/d"; then
      echo "ok   $case ($(grep -c '^kind:' "$work/ours.yaml") objects)"; same=$((same + 1))
    else
      echo "DIFF $case:"; head -60 "$work/d"; status=1
    fi
  else
    if [ $go_rc -eq 0 ] || [ $rc -eq 0 ]; then
      echo "FAIL $case: expected both to fail; oracle exit $go_rc, capi-render exit $rc"; status=1; continue
    fi
    if grep -qF -- "$want" "$work/go.err" && grep -qF -- "$want" "$work/ours.err"; then
      echo "ok   $case (both: $want)"; same=$((same + 1))
    else
      echo "FAIL $case: both should say: $want"; sed 's/^/  oracle: /' "$work/go.err"; sed 's/^/  capi-render: /' "$work/ours.err"; status=1
    fi
  fi
done <<EOF
quick-start-runtimesdk | $class | cluster.yaml | extensionconfig.yaml |
merge-patches          | $class | cluster.yaml | extensionconfig-merge.yaml |
mixed-inline-external  | $mixed | cluster.yaml | extensionconfig.yaml |
validation-failure     | $class | cluster-over-cap.yaml | extensionconfig.yaml | validation of patch "test-patch" failed: failed to call extension handler "validate-topology.k8s-upgrade-with-runtimesdk": got failure response with message: the control plane has 3 replicas, more than replicasCap 2
required-discovered-variable | $class | cluster-no-tag.yaml | extensionconfig.yaml | required variable "imageTag" must be set
core-v1.14-quick-start-runtimesdk | $class_v1beta1 | cluster-v1beta1.yaml | extensionconfig.yaml | | --capi-version v1.14.2
core-v1.14-quick-start-runtimesdk-v1beta1 | $class_v1beta1_v111 | cluster-v1beta1-v1.11.yaml | extensionconfig.yaml | | --capi-version v1.14.2
core-v1.14-in-memory | $class_in_memory | cluster-in-memory-v1beta1.yaml | extensionconfig-scale.yaml | | --capi-version v1.14.2
EOF
echo "runtime-sdk: $n cases against CAPI v1.14.2's runtime client and the test extension, $same agreed, $((n - same)) differences"
exit $status
