#!/usr/bin/env bash
# Run every fuzz target for SECONDS each (default 20), from the repository root:
#   bash fuzz/run.sh [SECONDS] [TARGET...]
# Needs the nightly toolchain and cargo-fuzz (installed here if missing). The seed
# corpora are fuzz/corpus/TARGET (new inputs libFuzzer finds are kept there, so a long
# local run grows them; commit what is worth keeping). A crash leaves its input in
# fuzz/artifacts/TARGET and fails the script. The build is cached outside the checkout.
# CAPI_FUZZ_SEED fixes libFuzzer's seed (CI sets 1): the inputs tried are then the same
# on every run, so CI finds nothing a local run with that seed and as many seconds
# would not have found first; without it every run explores from a new seed.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
shift || true
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked --quiet
target_dir=${CAPI_FUZZ_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-render/fuzz-target}
seed_arg=()
[ -z "${CAPI_FUZZ_SEED:-}" ] || seed_arg=(-seed="$CAPI_FUZZ_SEED")
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo +nightly fuzz list)
for t in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$t"
  log=$(mktemp)
  if ! cargo +nightly fuzz run --target-dir "$target_dir" "$t" "fuzz/corpus/$t" -- \
      -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 "${seed_arg[@]}" >"$log" 2>&1; then
    tail -40 "$log"
    echo "fuzz: $t FAILED (input in fuzz/artifacts/$t)"
    exit 1
  fi
  stats=$(grep -E '^Done [0-9]+ runs' "$log" | tail -1 || true)
  echo "fuzz: $t ok: ${stats:-done} (${secs}s)"
  rm -f "$log"
done
