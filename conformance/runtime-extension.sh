#!/usr/bin/env bash
# Start the Runtime SDK test extension (conformance/oracle/v1beta2/cmd/testextension,
# Cluster API v1.14.2's own runtime server) on a free loopback port.
#
#   conformance/runtime-extension.sh DIR          start it, certificates in DIR; prints
#                                                 "URL CA PID" once it answers discovery
#   conformance/runtime-extension.sh --check DIR  the same, then prints the hooks its
#                                                 discovery lists and stops it
#
# The binary is built once per source hash, cached outside the checkout in
# ~/.cache/capi-render/testextension/. The caller stops the extension (kill PID).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
[ $# -eq 1 ] || { echo "usage: $0 [--check] DIR" >&2; exit 2; }
mkdir -p "$1"
dir="$(cd "$1" && pwd)"

mod="$here/oracle/v1beta2"
hash=$( (cd "$mod" && cat go.mod go.sum cmd/testextension/*.go) | sha256sum | cut -c1-16)
cache="${XDG_CACHE_HOME:-$HOME/.cache}/capi-render/testextension"
bin="$cache/testextension-$hash"
if [ ! -x "$bin" ]; then
  mkdir -p "$cache"
  (cd "$mod" && go build -o "$bin.tmp" ./cmd/testextension) && mv "$bin.tmp" "$bin"
fi

# A free port: bind port 0 and read what the kernel gave.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
"$bin" --port "$port" --cert-dir "$dir" >"$dir/extension.log" 2>&1 &
pid=$!
url="https://127.0.0.1:$port"
# One discovery call (python3's ssl, trusting the extension's CA): its JSON, or a failure.
discover() {
  python3 - "$url/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery" "$dir/ca.crt" <<'PY'
import ssl, sys, urllib.request
req = urllib.request.Request(sys.argv[1], method="POST",
    data=b'{"apiVersion":"hooks.runtime.cluster.x-k8s.io/v1alpha1","kind":"DiscoveryRequest"}',
    headers={"Content-Type": "application/json"})
ctx = ssl.create_default_context(cafile=sys.argv[2])
print(urllib.request.urlopen(req, context=ctx, timeout=2).read().decode())
PY
}
for _ in $(seq 1 100); do
  if out=$(discover 2>/dev/null); then
    if [ $check = 1 ]; then
      echo "$out" | python3 -c 'import json,sys; r=json.load(sys.stdin); print("serves", " ".join(sorted(h["requestHook"]["hook"] for h in r["handlers"])))'
      kill "$pid"
    else
      echo "$url $dir/ca.crt $pid"
    fi
    exit 0
  fi
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "testextension exited:" >&2; cat "$dir/extension.log" >&2; exit 1
  fi
  sleep 0.1
done
kill "$pid" 2>/dev/null || true
echo "testextension did not answer discovery on $url within 10 s:" >&2
cat "$dir/extension.log" >&2
exit 1
