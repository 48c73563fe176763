# Sourced by conformance/apiserver.sh after its Flux CRDs are installed and flux-system
# exists (KUBECONFIG set): `render --secrets flux-substitute` against Flux's own code.
# The fixture provider (fixtures/secrets: credentials from its config Secret, a value
# embedded in a URL, a default, a ConfigMap with a literal `$`) is rendered twice, with
# `--secrets keep` and with `--secrets flux-substitute`; then
#   - no file of the flux-substitute tree holds a config Secret value (as is, in base64,
#     or a line of the decoded credentials);
#   - conformance/flux-substitute (github.com/fluxcd/pkg/kustomize: SecureBuild, then
#     SubstituteVariables on every resource, as kustomize-controller does) builds the
#     provider's unit with the Secret's values, and the objects equal the keep unit's
#     (`kubectl kustomize`), but for Flux's `substitute: disabled` annotation;
#   - the substituted objects apply (server-side) and the unit's Flux Kustomization, with
#     its postBuild.substituteFrom, is accepted (server-side dry run), beside the Secret
#     it names, created in flux-system with the command docs/src/reference/render.md shows.
# Uses $capi, $work, $root, note() and fail of apiserver.sh.

sx="$work/secrets"; mkdir -p "$sx"
fx="$root/fixtures/secrets"
# The Flux oracle, built once per go.sum (Go module proxy; cached outside the checkout).
flux_sum=$(sha256sum "$root/conformance/flux-substitute/go.sum" "$root/conformance/flux-substitute/main.go" | sha256sum | cut -c1-16)
flux_bin=${XDG_CACHE_HOME:-$HOME/.cache}/capi-render/flux-substitute-$flux_sum
if [ ! -x "$flux_bin" ]; then
  echo "building conformance/flux-substitute (fluxcd/pkg/kustomize) from the Go module proxy" >&2
  mkdir -p "$(dirname "$flux_bin")"
  (cd "$root/conformance/flux-substitute" && go build -o "$flux_bin" .)
fi
unit=providers/vault-system/infrastructure-vault
(cd "$sx" && "$capi" --repository "$fx/repository" render -f "$fx/providers.yaml" -o keep --secrets keep >/dev/null 2>&1 &&
  "$capi" --repository "$fx/repository" render -f "$fx/providers.yaml" -o flux --flux --flux-path flux \
    --secrets flux-substitute >/dev/null 2>&1) || { note "FAIL secrets: render"; fail=1; }
python3 - "$fx/providers.yaml" "$sx/vars.json" "$sx/needles" <<'PY'
import base64, json, sys, yaml
s = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d["kind"] == "Secret"][0]
v = s["stringData"]
json.dump(v, open(sys.argv[2], "w"))
n = list(v.values()) + [base64.b64encode(x.encode()).decode() for x in v.values()]
n += [l for l in base64.b64decode(v["VAULT_B64ENCODED_CREDENTIALS"]).decode().splitlines() if l]
open(sys.argv[3], "w").write("\n".join(n) + "\n")
PY
if grep -rlF -f "$sx/needles" "$sx/flux" >"$sx/leaks"; then
  note "FAIL secrets: config Secret values in the flux-substitute tree:"; cat "$sx/leaks" >&2; fail=1
else
  echo "secrets: no config Secret value in the $(find "$sx/flux" -type f | wc -l) files of the flux-substitute tree"
fi
kubectl kustomize "$sx/keep/$unit" >"$sx/keep.yaml"
if "$flux_bin" "$sx/flux/$unit" "$sx/vars.json" >"$sx/substituted.yaml" 2>"$sx/flux.err" &&
  report=$(python3 - "$sx/substituted.yaml" "$sx/keep.yaml" <<'PY'
import sys, yaml
def load(p):
    return [d for d in yaml.safe_load_all(open(p)) if d]
key = lambda d: (d["kind"], d["metadata"].get("namespace", ""), d["metadata"]["name"])
got, want = load(sys.argv[1]), load(sys.argv[2])
disabled = 0
for d in got:
    a = d["metadata"].get("annotations", {})
    disabled += a.pop("kustomize.toolkit.fluxcd.io/substitute", None) == "disabled"
    if not a:
        d["metadata"].pop("annotations", None)
if sorted(got, key=key) != sorted(want, key=key):
    print(f"{len(got)} objects substituted, {len(want)} kept: they differ")
    sys.exit(1)
print(f"{len(got)} objects of Flux's substitution equal the keep rendering ({disabled} with substitute: disabled)")
PY
); then
  echo "secrets: flux-substitute: $report"
  if kubectl apply --server-side -f "$sx/substituted.yaml" >"$sx/apply.log" 2>&1; then
    echo "secrets: flux-substitute: $(grep -c serverside-applied "$sx/apply.log") substituted objects applied"
  else
    note "FAIL secrets: apply of the substituted unit:"; head "$sx/apply.log" >&2; fail=1
  fi
else
  note "FAIL secrets: flux-substitute: ${report:-}"; cat "$sx/flux.err" >&2; fail=1
fi
# The Secret the Kustomization names, made from the config Secret (applied above from
# the inputs) with the documented command, and the Kustomization itself.
kubectl apply --server-side -f <(python3 -c 'import sys, yaml; print(yaml.safe_dump([d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d["kind"] == "Secret"][0]))' "$fx/providers.yaml") >/dev/null
kubectl -n vault-system get secret vault-variables -o json |
  jq '{apiVersion, kind, type, data, metadata: {name: "vault-system-vault-variables", namespace: "flux-system"}}' |
  kubectl apply --server-side -f - >/dev/null
if kubectl apply --server-side --dry-run=server -f "$sx/flux/flux/vault-system-infrastructure-vault.yaml" >/dev/null 2>"$sx/ks.err" &&
  [ "$(kubectl -n flux-system get secret vault-system-vault-variables -o jsonpath='{.data.VAULT_TENANT}' | base64 -d)" = "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["VAULT_TENANT"])' "$sx/vars.json")" ]; then
  echo "secrets: the unit's Flux Kustomization (postBuild.substituteFrom) accepted beside its flux-system Secret (server-side dry run)"
else
  note "FAIL secrets: the Flux Kustomization or its Secret:"; cat "$sx/ks.err" >&2; fail=1
fi
