#!/usr/bin/env bash
# Rewrite src/admission/crds-v1.14.2.yaml: the Cluster and ClusterClass CRDs of Cluster API
# v1.14.2's core provider, the documents of its released core-components.yaml taken
# verbatim (no edit), in the release's order. capi-render checks v1beta2 (and, under a
# v1.11+ core, v1beta1) Clusters and ClusterClasses against them when the tree installs no
# core provider (src/admission/crds.rs). tests: admission::crds::tests checks the file
# still equals the corpus's documents.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
CAPI_CORPUS=${CAPI_CORPUS:-$root/../shared/corpus}
src="$CAPI_CORPUS/repository/cluster-api/v1.14.2/core-components.yaml"
python3 - "$src" "$root/src/admission/crds-v1.14.2.yaml" <<'PY'
import sys, re
text = open(sys.argv[1]).read()
docs = re.split(r'(?m)^---\n', text)
keep = [d for d in docs
        if re.search(r'(?m)^kind: CustomResourceDefinition$', d)
        and re.search(r'(?m)^  name: (clusters|clusterclasses)\.cluster\.x-k8s\.io$', d)]
assert len(keep) == 2, len(keep)
open(sys.argv[2], 'w').write('---\n'.join(keep))
PY
