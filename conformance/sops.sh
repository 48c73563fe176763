# Sourced by conformance/apiserver.sh after conformance/secrets.sh (KUBECONFIG set,
# Flux CRDs installed, flux-system and vault-system exist): `render --secrets sops`
# against the real sops. The fixture provider (fixtures/secrets) is rendered with
# `--secrets sops` for a fresh age key, then
#   - no file of the tree holds the credential (as is, in base64, or a line of it);
#   - sops v3.13.3's own `sops -d` (built from the Go module proxy, cached outside the
#     checkout) decrypts every sealed file, and the objects equal the `--secrets keep`
#     tree's (secrets.sh rendered it);
#   - the decrypted Secrets apply (server-side), and the unit's Flux Kustomization, with
#     its spec.decryption, is accepted (server-side dry run) beside the sops-age Secret
#     it names, made with the command docs/src/reference/render.md shows;
#   - a second render keeps every sealed file byte for byte, `--check` passes, and a
#     changed credential re-encrypts only its Secret (which `sops -d` reads back).
# Uses $capi, $work, $root, $sx, $fx, $unit, note() and fail of apiserver.sh/secrets.sh.

sops_version=v3.13.3
sops_cache=${XDG_CACHE_HOME:-$HOME/.cache}/capi-render
sops_bin=$sops_cache/sops-$sops_version/sops
keygen=$sops_cache/age-v1.3.2/age-keygen
if [ ! -x "$sops_bin" ] || [ ! -x "$keygen" ]; then
  echo "building sops $sops_version and age-keygen v1.3.2 from the Go module proxy" >&2
  GOBIN=$sops_cache/sops-$sops_version go install "github.com/getsops/sops/v3/cmd/sops@$sops_version"
  GOBIN=$sops_cache/age-v1.3.2 go install filippo.io/age/cmd/age-keygen@v1.3.2
fi
ss="$work/sops"; rm -rf "$ss"; mkdir -p "$ss"
"$keygen" -o "$ss/age.key" 2>/dev/null
pub=$("$keygen" -y "$ss/age.key")
# Inputs inside the scratch directory: `render --from-lock` reads inside it only.
cp -r "$fx/repository" "$ss/repository"; cp "$fx/providers.yaml" "$ss/providers.yaml"
render_sops() { # inputs (relative to $ss)
  (cd "$ss" && "$capi" --repository repository render -f "$1" -o tree --flux --flux-path tree \
    --secrets sops --sops-age-recipient "$pub" 2>"$ss/render.err" >/dev/null)
}
if ! render_sops providers.yaml; then
  note "FAIL sops: render"; cat "$ss/render.err" >&2; fail=1
fi
sealed=$(cd "$ss/tree" && { grep -rl '^sops:' --include='*.yaml' . || true; } | sort)
if [ -z "$sealed" ]; then
  note "FAIL sops: no sealed file in the tree"; fail=1
fi
cred_needles="$ss/needles"
python3 - "$fx/providers.yaml" "$cred_needles" <<'PY'
import base64, sys, yaml
s = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d["kind"] == "Secret"][0]
c = s["stringData"]["VAULT_B64ENCODED_CREDENTIALS"]
n = [c, base64.b64encode(c.encode()).decode()] + [l for l in base64.b64decode(c).decode().splitlines() if l]
open(sys.argv[2], "w").write("\n".join(n) + "\n")
PY
if grep -rlF -f "$cred_needles" "$ss/tree" >"$ss/leaks"; then
  note "FAIL sops: the credential in the sops tree:"; cat "$ss/leaks" >&2; fail=1
else
  echo "sops: the credential is in none of the $(find "$ss/tree" -type f | wc -l) files of the tree ($(echo "$sealed" | wc -l) sealed)"
fi
decrypted=0
for f in $sealed; do
  if SOPS_AGE_KEY_FILE="$ss/age.key" "$sops_bin" -d "$ss/tree/$f" >"$ss/plain.yaml" 2>"$ss/sops.err" &&
    python3 - "$ss/plain.yaml" "$sx/keep/$f" <<'PY'
import sys, yaml
got, want = yaml.safe_load(open(sys.argv[1])), yaml.safe_load(open(sys.argv[2]))
sys.exit(0 if got == want else 1)
PY
  then
    decrypted=$((decrypted + 1))
    kubectl apply --server-side -f "$ss/plain.yaml" >>"$ss/apply.log" 2>&1 || { note "FAIL sops: apply of $f:"; tail -3 "$ss/apply.log" >&2; fail=1; }
  else
    note "FAIL sops: sops -d $f does not give the keep tree's object:"; cat "$ss/sops.err" >&2; fail=1
  fi
done
echo "sops: sops $sops_version decrypts $decrypted sealed file(s) to the --secrets keep objects; applied server-side"
# The age identity as Flux reads it, made with the documented command, and the
# Kustomization that decrypts with it.
kubectl -n flux-system create secret generic sops-age --from-file=age.agekey="$ss/age.key" \
  --dry-run=client -o yaml | kubectl apply --server-side -f - >/dev/null
ks="$ss/tree/flux/vault-system-infrastructure-vault.yaml"
if grep -q 'provider: sops' "$ks" &&
  kubectl apply --server-side --dry-run=server -f "$ks" >/dev/null 2>"$ss/ks.err"; then
  echo "sops: the unit's Flux Kustomization (spec.decryption, Secret sops-age) accepted (server-side dry run)"
else
  note "FAIL sops: the Flux Kustomization's decryption:"; cat "$ss/ks.err" >&2; fail=1
fi
# Unchanged plaintext keeps the ciphertext; a changed credential re-encrypts its Secret.
cp -r "$ss/tree" "$ss/before"
if render_sops providers.yaml && diff -r "$ss/before" "$ss/tree" >/dev/null &&
  (cd "$ss" && "$capi" render --from-lock tree --check >"$ss/check.out" 2>&1); then
  echo "sops: a second render keeps every file byte for byte; render --from-lock --check passes"
else
  note "FAIL sops: a second render changed the tree, or --check failed:"; diff -rq "$ss/before" "$ss/tree" >&2 || true; tail -5 "$ss/check.out" >&2; fail=1
fi
sed 's/VAULT_B64ENCODED_CREDENTIALS: .*/VAULT_B64ENCODED_CREDENTIALS: cm90YXRlZAo=/' "$fx/providers.yaml" >"$ss/providers.yaml"
if render_sops providers.yaml; then
  changed=$( { diff -rq "$ss/before" "$ss/tree" || true; } | { grep -v 'capi-render.lock' || true; } | wc -l)
  if [ "$changed" = 1 ] && SOPS_AGE_KEY_FILE="$ss/age.key" "$sops_bin" -d "$ss/tree/${sealed%%$'\n'*}" | grep -q 'credentials: cm90YXRlZAo='; then
    echo "sops: a rotated credential re-encrypts its Secret alone (1 file and the lock), which sops -d reads back"
  else
    note "FAIL sops: after a rotated credential $changed file(s) changed, or sops -d does not read it"; diff -rq "$ss/before" "$ss/tree" >&2 || true; fail=1
  fi
else
  note "FAIL sops: render of the rotated credential"; cat "$ss/render.err" >&2; fail=1
fi
