#!/usr/bin/env bash
# Run every fuzz target for SECONDS each (default 20), from the repository root:
#   bash fuzz/run.sh [SECONDS] [TARGET...]
# Needs the nightly toolchain and cargo-fuzz (installed here if missing). The build is
# cached outside the checkout.
#
# Corpora: git holds a small seed set per target, fuzz/seeds/TARGET. The working corpus
# lives outside the checkout, in CAPI_FUZZ_CORPUS/TARGET (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/capi-render/fuzz-corpus/TARGET): each run first
# replays the seeds alone (every seed run once: a seed that crashes fails the script
# however long the run), then copies the seeds into the cache and fuzzes there, so the
# inputs libFuzzer finds stay in the cache and a long local run grows it. To keep an
# input found that way, copy it into fuzz/seeds/TARGET (the seed sets stay small: a few
# dozen files a target). SECONDS=0 replays the seeds only.
# A crash leaves its input in fuzz/artifacts/TARGET and fails the script.
# CAPI_FUZZ_SEED fixes libFuzzer's seed (CI sets 1): the inputs tried are then the same
# on every run with the same corpus; without it every run explores from a new seed.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
shift || true
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked --quiet
target_dir=${CAPI_FUZZ_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-render/fuzz-target}
corpus_root=${CAPI_FUZZ_CORPUS:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-render/fuzz-corpus}
seed_arg=()
[ -z "${CAPI_FUZZ_SEED:-}" ] || seed_arg=(-seed="$CAPI_FUZZ_SEED")
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo +nightly fuzz list)
fuzz() { # TARGET LOG CORPUS... -- LIBFUZZER-FLAGS...
  local t=$1 log=$2
  shift 2
  if ! cargo +nightly fuzz run --target-dir "$target_dir" "$t" "$@" >"$log" 2>&1; then
    tail -40 "$log"
    echo "fuzz: $t FAILED (input in fuzz/artifacts/$t)"
    exit 1
  fi
}
for t in "${targets[@]}"; do
  seeds=fuzz/seeds/$t
  [ -d "$seeds" ] || { echo "fuzz: $t has no seeds ($seeds)"; exit 1; }
  log=$(mktemp)
  fuzz "$t" "$log" "$seeds" -- -runs=0 -rss_limit_mb=2048 -timeout=10
  echo "fuzz: $t seeds ok: $(find "$seeds" -type f | wc -l) replayed"
  if [ "$secs" -gt 0 ]; then
    corpus=$corpus_root/$t
    mkdir -p "$corpus"
    for f in "$seeds"/*; do
      [ -e "$corpus/${f##*/}" ] || cp "$f" "$corpus/"
    done
    fuzz "$t" "$log" "$corpus" -- \
      -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 "${seed_arg[@]}"
    stats=$(grep -E '^Done [0-9]+ runs' "$log" | tail -1 || true)
    echo "fuzz: $t ok: ${stats:-done} (${secs}s, corpus $corpus: $(find "$corpus" -type f | wc -l) files)"
  fi
  rm -f "$log"
done
