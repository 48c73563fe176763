#!/usr/bin/env bash
# GitOps conformance: capi-render's trees and KRM function against the real kustomize.
#
#   conformance/kustomize.sh
#
# For every case (the four corpus providers at v1.10.10, and a customised provider
# set) it renders `render --stdout` and a tree `render -o OUT --flux`, then checks that
#   * `kustomize build OUT` yields exactly the objects of `render --stdout` (as sets:
#     both streams are parsed and printed by kustomize, which sorts them the same way);
#   * every unit directory and OUT/flux build on their own, and every Flux
#     Kustomization's spec.path is a directory of the tree;
#   * each unit built as Flux builds it (with its Kustomization's patches) marks every
#     CRD and Namespace `kustomize.toolkit.fluxcd.io/prune: disabled`;
#   * a second render writes nothing and `render --check` exits 0.
# Then it runs the KRM example (fixtures/gitops/krm) through
# `kustomize build --enable-alpha-plugins --enable-exec` and compares it the same way.
#
# Installs kustomize with `go install` when it is missing. Needs $CAPI_CORPUS
# (default ../shared/corpus relative to the repository root).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
CAPI_CORPUS=${CAPI_CORPUS:-$root/../shared/corpus}
CAPI_CORPUS=$(cd "$CAPI_CORPUS" && pwd)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

gobin=$(go env GOPATH)/bin
kustomize=${KUSTOMIZE:-$(command -v kustomize || echo "$gobin/kustomize")}
if ! "$kustomize" version >/dev/null 2>&1; then
  echo "installing kustomize with go install" >&2
  # @latest may need a newer Go than the one installed; fall back to a release that builds.
  GOBIN="$work/bin" go install sigs.k8s.io/kustomize/kustomize/v5@latest 2>"$work/install.log" ||
    GOBIN="$work/bin" go install sigs.k8s.io/kustomize/kustomize/v5@v5.8.1 2>>"$work/install.log" ||
    { cat "$work/install.log" >&2; exit 1; }
  mkdir -p "$gobin"; cp "$work/bin/kustomize" "$gobin/kustomize"; kustomize="$gobin/kustomize"
fi
echo "kustomize $("$kustomize" version)"
(cd "$root" && cargo build --release --quiet)
capi="$root/target/release/capi-render"

fail=0
note() { echo "$*" >&2; }

# The objects of a YAML stream, parsed and printed by kustomize in its own order.
normalise() { # stream.yaml outfile
  local d; d=$(mktemp -d "$work/norm.XXXX")
  cp "$1" "$d/objects.yaml"
  printf 'resources:\n- objects.yaml\n' >"$d/kustomization.yaml"
  "$kustomize" build "$d" >"$2"
}

same_objects() { # label expected.yaml actual.yaml
  normalise "$2" "$work/expected.norm"; normalise "$3" "$work/actual.norm"
  local n; n=$(grep -c '^kind:' "$work/expected.norm" || true)
  if cmp -s "$work/expected.norm" "$work/actual.norm"; then
    echo "$1: $n objects, identical sets"
  else
    note "FAIL $1: kustomize's objects differ from render --stdout"
    diff -u "$work/expected.norm" "$work/actual.norm" | head -40 >&2
    fail=1
  fi
}

check_case() { # name inputs...
  local name=$1 mode=${CLUSTERS:-managed}; shift
  local dir="$work/$name"; mkdir -p "$dir"
  # Relative paths, as a user in the repository root would run it (the tree and the
  # lock then hold no machine paths).
  cp -r "$@" "$dir/"
  ln -s "$CAPI_CORPUS/repository" "$dir/repository"
  local inputs=(); for i in "$@"; do inputs+=(-f "$(basename "$i")"); done
  (cd "$dir" && "$capi" render "${inputs[@]}" --repository repository --clusters "$mode" --stdout >stdout.yaml)
  (cd "$dir" && "$capi" render "${inputs[@]}" --repository repository --clusters "$mode" -o out --flux 2>/dev/null)
  "$kustomize" build "$dir/out" >"$dir/built.yaml"
  same_objects "$name" "$dir/stdout.yaml" "$dir/built.yaml"
  # Every unit directory and the Flux directory build on their own.
  local units=0
  while IFS= read -r k; do
    local u; u=$(dirname "$k")
    "$kustomize" build "$u" >/dev/null || { note "FAIL $name: kustomize build ${u#"$dir/"}"; fail=1; }
    units=$((units + 1))
  done < <(find "$dir/out/namespaces" "$dir/out/providers" "$dir/out/classes" "$dir/out/clusters" -name kustomization.yaml 2>/dev/null | sort)
  "$kustomize" build "$dir/out/flux" >"$dir/flux.yaml" || { note "FAIL $name: kustomize build flux"; fail=1; }
  local paths; paths=$(grep -E '^  path: ' "$dir/flux.yaml" | sed -E 's#^  path: \./out/##')
  for p in $paths; do
    [ -f "$dir/out/$p/kustomization.yaml" ] || { note "FAIL $name: Flux path $p is not in the tree"; fail=1; }
  done
  [ "$(echo "$paths" | wc -w)" = "$units" ] || { note "FAIL $name: $units units but $(echo "$paths" | wc -w) Flux Kustomizations"; fail=1; }
  # As Flux applies a unit: its directory with the Kustomization's patches. Every CRD
  # and Namespace must come out marked `kustomize.toolkit.fluxcd.io/prune: disabled`.
  local protected
  protected=$(python3 - "$dir" "$kustomize" <<'PY'
import os, subprocess, sys, tempfile, yaml
d, kustomize = sys.argv[1], sys.argv[2]
n = 0
for f in sorted(os.listdir(f"{d}/out/flux")):
    if f == "kustomization.yaml":
        continue
    k = yaml.safe_load(open(f"{d}/out/flux/{f}"))
    unit = os.path.join(d, k["spec"]["path"])
    with tempfile.TemporaryDirectory(dir=d) as w:
        with open(f"{w}/kustomization.yaml", "w") as out:
            yaml.safe_dump({"resources": [os.path.relpath(unit, w)],
                            "patches": k["spec"].get("patches", [])}, out)
        built = subprocess.run([kustomize, "build", w], check=True, capture_output=True, text=True).stdout
    for o in yaml.safe_load_all(built):
        if o and o["kind"] in ("CustomResourceDefinition", "Namespace"):
            ann = (o["metadata"].get("annotations") or {})
            if ann.get("kustomize.toolkit.fluxcd.io/prune") != "disabled":
                sys.exit(f"{o['kind']} {o['metadata']['name']} of {f} is not protected from pruning")
            n += 1
print(n)
PY
) || { note "FAIL $name: Flux prune protection"; fail=1; }
  # Idempotence and --check through the CLI.
  local before after
  before=$(cd "$dir/out" && find . -type f -newer "$dir/built.yaml" | wc -l)
  (cd "$dir" && "$capi" render "${inputs[@]}" --repository repository --clusters "$mode" -o out --flux 2>"$dir/second.log")
  after=$(cd "$dir/out" && find . -type f -newer "$dir/built.yaml" | wc -l)
  grep -q ' 0 written, ' "$dir/second.log" && [ "$before" = "$after" ] || { note "FAIL $name: a second render rewrote files"; fail=1; }
  if ! (cd "$dir" && "$capi" render "${inputs[@]}" --repository repository --clusters "$mode" -o out --flux --check >"$dir/check.diff"); then
    note "FAIL $name: render --check on a fresh tree"; head -20 "$dir/check.diff" >&2; fail=1
  fi
  echo "$name: $units unit directories and the Flux directory build; ${protected:-0} CRDs and Namespaces protected from pruning"
}

check_case corpus "$root/fixtures/gitops/corpus/providers.yaml"
check_case custom "$root/fixtures/gitops/custom/providers.yaml" "$root/fixtures/gitops/custom/variables.yaml"
# Providers and a fleet of topology Clusters in both cluster modes: managed (class units
# classes/<ns>/<class>/, Cluster units clusters/<ns>/<name>/ with their review files in
# desired/, applied by no kustomization) and flatten.
check_case fleet "$root/fixtures/gitops/corpus/providers.yaml" "$root/fixtures/quickstart/clusters"
CLUSTERS=flatten check_case fleet-flatten "$root/fixtures/gitops/corpus/providers.yaml" "$root/fixtures/quickstart/clusters"

# --- the KRM function as a kustomize exec generator -------------------------------------
krm="$work/krm"; cp -r "$root/fixtures/gitops/krm" "$krm"
ln -s "$CAPI_CORPUS/repository" "$krm/repository"
(cd "$krm" && "$capi" render -f providers.yaml --repository repository --stdout >"$work/krm-stdout.yaml")
if PATH="$root/target/release:$PATH" "$kustomize" build --enable-alpha-plugins --enable-exec "$krm" >"$work/krm-built.yaml" 2>"$work/krm.log"; then
  same_objects krm "$work/krm-stdout.yaml" "$work/krm-built.yaml"
else
  note "FAIL krm: kustomize build --enable-alpha-plugins --enable-exec"; cat "$work/krm.log" >&2; fail=1
fi

# --- the book's CI recipes (docs/src/guide/ci.md), run as written --------------------------
recipes="$root/docs/src/guide/ci.md"
# The first ```sh block after a marker line of the recipes page.
readme_block() { awk -v m="$1" 'index($0, m) {f=1} f && /^```sh$/ {p=1; next} p && /^```$/ {exit} p' "$recipes"; }
rec="$work/recipes"; mkdir -p "$rec/capi"
cp "$root/fixtures/gitops/corpus/providers.yaml" "$rec/capi/providers.yaml"
ln -s "$CAPI_CORPUS/repository" "$rec/capi/repository"
(cd "$rec" && git init -q . && git config user.email ci@example.invalid && git config user.name ci)
export PATH="$root/target/release:$PATH"
readme_block '**Pre-render**' >"$work/pre-render.sh"
readme_block '**CI**' >"$work/ci.sh"
if ! (cd "$rec" && bash -e "$work/pre-render.sh" >/dev/null 2>&1) || [ -z "$(cd "$rec" && git log --oneline)" ]; then
  note "FAIL pre-render recipe"; fail=1
fi
(cd "$rec" && bash "$work/ci.sh" >/dev/null 2>&1) || { note "FAIL CI recipe on a fresh tree"; fail=1; }
sed -i 's/^  version: v1.10.10$/  version: v1.10.9/' "$rec/capi/providers.yaml"
set +e; (cd "$rec" && bash "$work/ci.sh" >"$work/ci.out" 2>&1); rc=$?; set -e
if [ "$rc" != 1 ] || ! grep -q '^+++ b/capi-render.lock' "$work/ci.out"; then
  note "FAIL CI recipe on a stale tree (exit $rc)"; head -5 "$work/ci.out" >&2; fail=1
fi
if command -v pre-commit >/dev/null; then
  awk '/^\*\*pre-commit\*\*/ {f=1} f && /^```yaml$/ {p=1; next} p && /^```$/ {exit} p' "$recipes" >"$rec/.pre-commit-config.yaml"
  (cd "$rec" && git add -A && git commit -qm stale)
  set +e; (cd "$rec" && pre-commit run --all-files >"$work/pc.out" 2>&1); pcrc=$?; set -e
  if [ "$pcrc" = 0 ] || ! grep -q '^+++ b/capi-render.lock' "$work/pc.out"; then
    note "FAIL pre-commit recipe on a stale tree (exit $pcrc, no diff)"; head -20 "$work/pc.out" >&2; fail=1
  fi
  (cd "$rec" && capi-render render -f capi/providers.yaml --repository capi/repository -o capi/rendered --flux 2>/dev/null && git add -A && git commit -qm rerendered)
  (cd "$rec" && pre-commit run --all-files >"$work/pc2.out" 2>&1) || { note "FAIL pre-commit recipe on an up-to-date tree"; head -20 "$work/pc2.out" >&2; fail=1; }
  echo "pre-commit recipe: stale tree fails with a diff, up-to-date tree passes"
  # This repository's .pre-commit-hooks.yaml, as a user's config names it (pre-commit
  # clones the repository at a commit and builds it with cargo).
  if rev=$(git -C "$root" rev-parse HEAD 2>/dev/null) && [ -z "$(git -C "$root" status --porcelain .pre-commit-hooks.yaml)" ]; then
    printf 'repos:\n- repo: %s\n  rev: %s\n  hooks:\n  - id: capi-render-check\n    args: [--from-lock, capi/rendered]\n' \
      "$root" "$rev" >"$rec/.pre-commit-config.yaml"
    (cd "$rec" && git add -A && git commit -qm hooks)
    # pre-commit's `cargo install` builds in a target directory cached outside the
    # checkout (the dependencies once, not on every run; this crate is rebuilt).
    set +e; (cd "$rec" && PRE_COMMIT_HOME="$work/pre-commit-home" \
      CARGO_TARGET_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/capi-render/pre-commit-target" \
      pre-commit run --all-files >"$work/pc3.out" 2>&1); pcrc=$?; set -e
    if [ "$pcrc" = 0 ]; then
      echo "hook capi-render-check from .pre-commit-hooks.yaml (built by pre-commit with cargo): passes on an up-to-date tree"
    else
      note "FAIL .pre-commit-hooks.yaml hook capi-render-check (exit $pcrc)"; tail -20 "$work/pc3.out" >&2; fail=1
    fi
  fi
else
  echo "pre-commit not installed: pre-commit recipe not run"
fi
echo "CI recipes (docs/src/guide/ci.md): pre-render, CI on a fresh tree (exit 0) and a stale one (exit $rc, diff)"

[ "$fail" = 0 ] || { echo "kustomize conformance: FAILED"; exit 1; }
echo "kustomize conformance: OK"
