#!/usr/bin/env bash
# `capi-render validate` (the check `render` runs on its inputs: issue 42) against
# apiextensions-apiserver's own code (conformance/oracle/cmd/crdvalidate -tsv: unknown
# fields by pruning and ObjectMeta, the structural schema, defaulting, the CEL rules), on
# the CRDs of every release in the corpus: for each version, the components of
# cluster-api, bootstrap-kubeadm, control-plane-kubeadm and infrastructure-docker plus
# cert-manager's. Objects: that release's cluster templates and ClusterClasses
# (envsubst-ed, conformance/crd-objects.py templates), the hostile fixtures of
# fixtures/crd-validate/ (hostile-*.yaml; widget-crd.yaml is a CRD of every schema feature
# and joins every release's CRDs), and per CRD version an unknown field, a wrong type and an enum
# violation generated from its schema (crd-objects.py mutations). Compared: the set of
# (file, document, field path, error type); message texts differ by design (ours say
# what to do). capi-render runs twice: `validate --no-webhooks` on every object (what
# the oracle models: the API server alone), and `validate` (as `render` checks: through
# the Cluster API defaulting webhooks' typed round trip) on the corpus templates,
# compared with `crdvalidate -webhooks` (the same round trip through Cluster API's Go
# types). A difference listed in conformance/crd-validate.known (the six
# tab-separated columns of the difference, then the reason) is reported as listed; any
# other fails. Objects of a kind no CRD serves are left out
# of the comparison (the oracle names each object, capi-render warns once per kind).
#
#   conformance/crd-validate.sh      (CAPI_CORPUS as in run.sh; CAPI_RENDER=BINARY to
#                                     skip the build; KEEP_WORK=1 keeps the scratch files)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
CAPI_CORPUS=${CAPI_CORPUS:-$root/../shared/corpus}
CAPI_CORPUS=$(cd "$CAPI_CORPUS" && pwd)
repo=$CAPI_CORPUS/repository
python3 -c 'import yaml' 2>/dev/null || { echo "crd-validate: python3 with PyYAML is needed (apt-get install python3-yaml)" >&2; exit 2; }

work=$(mktemp -d)
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$work"' EXIT
[ -z "${KEEP_WORK:-}" ] || echo "crd-validate: scratch directory $work (KEEP_WORK)" >&2
# The oracle, built once per source (cached outside the checkout by source hash).
hash=$( (cd "$here/oracle" && cat go.mod go.sum cmd/crdvalidate/main.go) | sha256sum | cut -c1-16)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/capi-render/crdvalidate
oracle=$cache/crdvalidate-$hash
if [ ! -x "$oracle" ]; then
  echo "building conformance/oracle/cmd/crdvalidate" >&2
  mkdir -p "$cache"
  (cd "$here/oracle" && go build -o "$oracle.tmp" ./cmd/crdvalidate) && mv "$oracle.tmp" "$oracle"
fi
# run.sh passes its release binary; alone, the checkout's is built.
if [ -n "${CAPI_RENDER:-}" ]; then capi=$CAPI_RENDER; else
  (cd "$root" && cargo build --release --quiet); capi="$root/target/release/capi-render"; fi

cm=$(ls -d "$repo"/cert-manager/*/cert-manager.yaml | sort -V | tail -1)
total=0 agree=0 listed=0 fail=0 applied=0 applied_problems=0
: >"$work/diffs"
for dir in "$repo"/cluster-api/*/; do
  v=$(basename "$dir")
  crds=("$repo/cluster-api/$v/core-components.yaml" "$repo/bootstrap-kubeadm/$v/bootstrap-components.yaml"
        "$repo/control-plane-kubeadm/$v/control-plane-components.yaml"
        "$repo/infrastructure-docker/$v/infrastructure-components.yaml" "$cm"
        "$root/fixtures/crd-validate/widget-crd.yaml")
  d="$work/$v"; mkdir -p "$d/objects"
  mapfile -t tpl < <(ls "$repo/infrastructure-docker/$v"/cluster*.yaml "$CAPI_CORPUS/e2e-repository/infrastructure-docker/$v"/cluster*.yaml 2>/dev/null | sort)
  (cd "$d/objects" && python3 "$here/crd-objects.py" templates . "${tpl[@]}" &&
    python3 "$here/crd-objects.py" mutations . "${crds[@]}" &&
    cp "$root"/fixtures/crd-validate/hostile-*.yaml .)
  mapfile -t objs < <(cd "$d/objects" && ls | sort)
  (cd "$d/objects" && { "$oracle" -tsv "${crds[@]}" -- "${objs[@]}" || true; }) | grep -v $'\tno CRD$' | sort -u >"$d/oracle.tsv"
  (cd "$d/objects" && { "$capi" -q validate --no-webhooks --crds "${crds[@]}" -f "${objs[@]}" || true; }) >"$d/ours.txt"
  # FILE: document N: Kind ns/name: PATH: TYPE[: detail] -> FILE<TAB>N<TAB>PATH<TAB>TYPE
  python3 - "$d/ours.txt" >"$d/ours.tsv" <<'PY'
import sys
rows = set()
for line in open(sys.argv[1]):
    f, doc, _who, path, detail = line.rstrip("\n").split(": ", 4)
    kind = "unknown field" if detail.startswith("unknown field") else detail.split(":")[0]
    rows.add("\t".join([f, doc.removeprefix("document "), "" if path == "<root>" else path, kind]))
print("\n".join(sorted(rows)))
PY
  sed -i '/^$/d' "$d/ours.tsv"
  # As applied: the corpus templates through the providers' defaulting webhooks
  # (`validate` without --no-webhooks, what `render` runs).
  mapfile -t tobjs < <(cd "$d/objects" && ls | grep -E '^(e2e-)?repository-' | sort)
  (cd "$d/objects" && { "$capi" -q validate --crds "${crds[@]}" -f "${tobjs[@]}" || true; }) >"$d/applied.txt"
  python3 - "$d/applied.txt" >"$d/applied.tsv" <<'PY'
import sys
for line in sorted(set(open(sys.argv[1]))):
    f, doc, _who, path, detail = line.rstrip("\n").split(": ", 4)
    kind = "unknown field" if detail.startswith("unknown field") else detail.split(":")[0]
    print("\t".join([f, doc.removeprefix("document "), path, kind]))
PY
  # The oracle through the same webhooks (crdvalidate -webhooks: Cluster API's Go types).
  : >"$d/oracle-templates.tsv"
  if [ ${#tobjs[@]} -gt 0 ]; then
    (cd "$d/objects" && { "$oracle" -tsv -webhooks "${crds[@]}" -- "${tobjs[@]}" || true; }) |
      { grep -v $'\tno CRD$' || true; } | sort -u >"$d/oracle-templates.tsv"
  fi
  comm -23 "$d/oracle-templates.tsv" "$d/applied.tsv" | sed "s#^#$v\toracle only (as applied)\t#" >>"$work/diffs"
  comm -13 "$d/oracle-templates.tsv" "$d/applied.tsv" | sed "s#^#$v\tcapi-render only (as applied)\t#" >>"$work/diffs"
  applied=$((applied + ${#tobjs[@]})); applied_problems=$((applied_problems + $(wc -l <"$d/applied.tsv")))
  n=$(cat "$d/oracle.tsv" "$d/ours.tsv" | sort -u | wc -l)
  same=$(comm -12 "$d/oracle.tsv" "$d/ours.tsv" | wc -l)
  comm -23 "$d/oracle.tsv" "$d/ours.tsv" | sed "s#^#$v\toracle only\t#" >>"$work/diffs"
  comm -13 "$d/oracle.tsv" "$d/ours.tsv" | sed "s#^#$v\tcapi-render only\t#" >>"$work/diffs"
  total=$((total + n)); agree=$((agree + same))
  echo "crd-validate $v: ${#objs[@]} object files, $(wc -l <"$d/oracle.tsv") problems found by apiextensions-apiserver, $same agreed"
done
known="$here/crd-validate.known"
while IFS= read -r line; do
  [ -n "$line" ] || continue
  key=$(cut -f1-6 <<<"$line"); any="*	$(cut -f2-6 <<<"$line")" # a release of * lists every release
  if grep -qxF -e "$key" -e "$any" <(grep -v '^#' "$known" 2>/dev/null | cut -f1-6); then
    listed=$((listed + 1)); echo "listed: $line: $(grep -v '^#' "$known" | grep -F -e "$key" -e "$any" | head -1 | cut -f7)"
  else
    echo "FAIL crd-validate disagreement: $line" >&2; fail=1
  fi
done <"$work/diffs"
echo "crd-validate: $applied corpus templates and ClusterClasses as applied (through the webhooks): $applied_problems problems"
echo "crd-validate: $total problems over 8 releases, $agree agreed, $listed listed disagreements, $(( $(wc -l <"$work/diffs") - listed )) unlisted"
exit $fail
