#!/usr/bin/env bash
# Conformance of `capi-render diff`'s rollout impact with Cluster API's own up-to-date
# code (sigs.k8s.io/cluster-api v1.14.2): for each case, one topology Cluster before and
# after a change, the oracle `desiredstateref --impact` (conformance/oracle/v1beta2/cmd/
# desiredstateref/impact.go: the desired states by exp/topology/desiredstate, the
# MachineSet match by mdutil.FindNewAndOldMachineSets, the KCP machines by
# controlplane/kubeadm/pkg.UpToDate) says what happens to the machines of the control
# plane, each MachineDeployment and each MachinePool; `capi-render diff -f BASE --against
# HEAD --output-format json` must say the same (`impact.clusters[]`).
#
#   conformance/impact.sh              regenerate the goldens into a scratch directory,
#                       fail if a committed one differs (after normalisation), then
#                       compare capi-render with the goldens
#   conformance/impact.sh update       rewrite golden/impact/<case>.json from the oracle
#                       (only where more than the random suffixes changed)
#
# Cases: conformance/impact/cases.txt (edits: conformance/impact/edits/*.sed). Golden:
# golden/impact/<case>.json, the oracle's output as it printed it. Compared: the action of
# every part that is not `none` (`controlPlane`, `machineDeployment <name>`,
# `machinePool <name>`), `cluster: delete`, and a chained upgrade's plans (or that
# Cluster API cannot plan it). Known differences:
# conformance/impact/differences/<case>.diff (the exact diff, oracle -> capi-render),
# each explained in conformance/impact/differences.md; a listed difference that
# disappears, or an unlisted one, fails the check.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
mode=${1:-check}
CAPI_CORPUS=${CAPI_CORPUS:-$root/../shared/corpus}
CAPI_CORPUS=$(cd "$CAPI_CORPUS" && pwd)
cases_file="$here/impact/cases.txt"
diffs_dir="$here/impact/differences"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The v1beta2 oracle, shared with topology-v1beta2.sh (one build, cached by source hash).
oracle=$("$here/oracle-v1beta2.sh")
(cd "$root" && cargo build --release --quiet)
capi="${CARGO_TARGET_DIR:-$root/target}/release/capi-render"

# A file of the case: corpus placeholders given their defaults, then the edit if any.
input() { # case side n token -> path
  local c=$1 side=$2 n=$3 tok=$4 path edit="" out
  path=${tok%%%*}; [ "$path" != "$tok" ] && edit=${tok#*%}
  out="$work/in/$c/$side/$n-$(basename "$path")"
  mkdir -p "$(dirname "$out")"
  case "$path" in
    corpus:*) sed -E 's/\$\{[A-Z_]+:-([^}]*)\}/\1/g' "$CAPI_CORPUS/${path#corpus:}" >"$out";;
    *) cp "$root/$path" "$out";;
  esac
  if [ -n "$edit" ]; then
    sed -i -f "$here/impact/edits/$edit.sed" "$out"
    cmp -s "$out" <(case "$path" in corpus:*) sed -E 's/\$\{[A-Z_]+:-([^}]*)\}/\1/g' "$CAPI_CORPUS/${path#corpus:}";; *) cat "$root/$path";; esac) &&
      { echo "edit $edit changes nothing in $path" >&2; return 1; }
  fi
  echo "$out"
}

# The compared lines of an impact: from the oracle's JSON or capi-render's DiffResult.
project() { # oracle|capi file
  python3 - "$1" "$2" <<'EOF'
import json, sys
who, path = sys.argv[1], sys.argv[2]
d = doc = json.load(open(path))
if who == "capi":
    cs = (d.get("impact") or {}).get("clusters") or []
    d = cs[0] if cs else {"action": "update"}
lines = []
if who == "capi":
    plan = d.get("upgradePlan")
    planned = [w for w in (doc.get("warnings") or []) if "cannot plan the upgrade" in w]
else:
    plan = d.get("upgradePlan")
    planned = [d["upgradeError"]] if d.get("upgradeError") else []
if plan:
    lines.append("upgradePlan controlPlane: " + " ".join(plan["controlPlane"]))
    lines.append("upgradePlan workers: " + " ".join(plan["workers"]))
if planned:
    lines.append("upgradePlan: cannot plan")
if d.get("action") == "delete":
    lines.append("cluster: delete")
else:
    cp = d.get("controlPlane")
    if cp and cp["action"] != "none":
        lines.append(f"controlPlane: {cp['action']}")
    for key, label in (("machineDeployments", "machineDeployment"), ("machinePools", "machinePool")):
        for p in d.get(key) or []:
            if p["action"] != "none":
                lines.append(f"{label} {p['name']}: {p['action']}")
print("\n".join(lines) if lines else "(no machine changes)")
EOF
}

norm() { sed -E 's/-[bcdfghjklmnpqrstvwxz2456789]{5}([^a-z0-9]|$)/-XXXXX\1/g' "$1"; }

status=0; cases=0; names=()
while IFS='|' read -r name base head flags; do
  name=$(printf '%s' "$name" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
  [ -z "$name" ] && continue; case "$name" in \#*) continue;; esac
  names+=("$name"); cases=$((cases + 1))
  read -r -a fl <<<"${flags:-}"
  bargs=(); cargs=(); hargs=(); aargs=(); n=0
  for t in $base; do n=$((n + 1)); f=$(input "$name" base $n "$t"); bargs+=(-f "$f"); cargs+=(-f "$f"); done
  for t in $head; do n=$((n + 1)); f=$(input "$name" head $n "$t"); hargs+=(--against "$f"); aargs+=(--against "$f"); done
  if ! "$oracle" --impact --crds "$root/src/admission/crds-v1.14.2.yaml" ${fl[@]+"${fl[@]}"} "${bargs[@]}" "${hargs[@]}" >"$work/$name.oracle.json" 2>"$work/$name.err"; then
    echo "FAIL $name: the oracle failed:"; cat "$work/$name.err"; status=1; continue
  fi
  gold="$root/golden/impact/$name.json"
  if [ "$mode" = update ]; then
    if [ ! -f "$gold" ] || ! cmp -s <(norm "$gold") <(norm "$work/$name.oracle.json"); then
      mkdir -p "$(dirname "$gold")"; cp "$work/$name.oracle.json" "$gold"; echo "updated golden/impact/$name.json"
    fi
    continue
  fi
  if [ ! -f "$gold" ]; then echo "MISSING golden/impact/$name.json"; status=1; continue; fi
  if ! cmp -s <(norm "$gold") <(norm "$work/$name.oracle.json"); then
    echo "STALE golden/impact/$name.json (the oracle's output changed)"; status=1
  fi
  set +e
  env -i PATH="$PATH" "$capi" diff -q --exit-code --output-format json ${fl[@]+"${fl[@]}"} "${cargs[@]}" "${aargs[@]}" >"$work/$name.capi.json" 2>"$work/$name.capi.err"
  rc=$?
  set -e
  if [ $rc -ne 2 ]; then # --exit-code: 2 is "changes"
    echo "FAIL $name: capi-render diff exited $rc:"; sed "s#$work/in/$name/##g" "$work/$name.capi.err" | head -20; status=1; continue
  fi
  diff -u --label "oracle/$name" --label "capi-render/$name" <(project oracle "$gold") <(project capi "$work/$name.capi.json") >"$work/actual.diff" || true
  expected="$diffs_dir/$name.diff"
  if [ -f "$expected" ]; then
    if cmp -s "$expected" "$work/actual.diff"; then
      echo "ok   $name (listed difference)"
    elif [ ! -s "$work/actual.diff" ]; then
      echo "FAIL $name: the listed difference is gone (remove differences/$name.diff and its entry)"; status=1
    else
      echo "FAIL $name: the difference changed:"; diff "$expected" "$work/actual.diff"; status=1
    fi
  elif [ -s "$work/actual.diff" ]; then
    echo "DIFF $name (unlisted):"; cat "$work/actual.diff"; status=1
  else
    echo "ok   $name: $(project oracle "$gold" | paste -sd ';' | sed 's/;/; /g')"
  fi
done <"$cases_file"
[ "$mode" = update ] && { echo "updated $cases impact cases"; exit "$status"; }

for f in "$diffs_dir"/*.diff; do
  [ -e "$f" ] || continue
  n=$(basename "$f" .diff)
  printf '%s\n' "${names[@]}" | grep -qxF "$n" || { echo "FAIL differences/$n.diff: no such case"; status=1; }
  grep -q "^## .*\`$n\`" "$here/impact/differences.md" || { echo "FAIL differences/$n.diff: no section in differences.md"; status=1; }
done
listed=$( (ls "$diffs_dir"/*.diff 2>/dev/null || true) | wc -l)
echo "impact: $cases cases against CAPI v1.14.2's up-to-date code, $listed with listed differences, unlisted or changed: $([ $status = 0 ] && echo 0 || echo 'see above')"
exit $status
