#!/usr/bin/env bash
# Write a fleet of N topology Clusters of the corpus quick-start ClusterClass (v1.10.10):
# 10 namespaces, each carrying the class and its templates, Clusters spread round-robin,
# 1-3 MachineDeployments each. Usage: fleet-gen.sh N DIR  (DIR/classes, DIR/clusters).
set -euo pipefail
n=$1; dir=$2
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/.." && pwd)
CAPI_CORPUS=$(cd "${CAPI_CORPUS:-$root/../shared/corpus}" && pwd)
class="$CAPI_CORPUS/repository/infrastructure-docker/v1.10.10/clusterclass-quick-start.yaml"
mkdir -p "$dir/classes" "$dir/clusters"
for i in $(seq 0 9); do
  sed "/^metadata:\$/a\\  namespace: ns$i" "$class" >"$dir/classes/ns$i.yaml"
done
# One file per 1,000 Clusters, as a fleet repository would split them.
awk -v n="$n" -v dir="$dir/clusters" 'BEGIN {
  for (i = 0; i < n; i++) {
    f = sprintf("%s/c%03d.yaml", dir, int(i / 1000))
    md = i % 3 + 1
    printf "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata:\n  name: c%06d\n  namespace: ns%d\n", i, i % 10 > f
    printf "spec:\n  clusterNetwork:\n    pods:\n      cidrBlocks: [\"192.168.0.0/16\"]\n    services:\n      cidrBlocks: [\"10.128.0.0/12\"]\n    serviceDomain: cluster.local\n" > f
    printf "  topology:\n    class: quick-start\n    version: v1.32.0\n    controlPlane:\n      replicas: %d\n", (i % 2) * 2 + 1 > f
    printf "    variables:\n    - name: imageRepository\n      value: \"\"\n    - name: etcdImageTag\n      value: \"\"\n    - name: coreDNSImageTag\n      value: \"\"\n" > f
    printf "    - name: podSecurityStandard\n      value:\n        enabled: true\n        enforce: baseline\n        audit: restricted\n        warn: restricted\n" > f
    printf "    workers:\n      machineDeployments:\n" > f
    for (m = 0; m < md; m++)
      printf "      - class: default-worker\n        name: md-%d\n        replicas: %d\n", m, m + 1 > f
    printf "---\n" > f
  }
}'
