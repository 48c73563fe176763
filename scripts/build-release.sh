#!/usr/bin/env bash
# Build capi-render's release binary and print its path:
#
#   capi=$(scripts/build-release.sh)     # …/target/release-static/capi-render
#
# On Linux with glibc the binary is linked statically against glibc, with glibc's own
# functions (`-C target-feature=+crt-static`, a static-pie executable), so it needs no
# shared library at run time. It is built through `cargo rustc`: cargo gives RUSTFLAGS
# to proc-macro crates too unless `--target` is passed, and rustc cannot build clap's
# and serde's derives static ("cannot produce proc-macro"). capi-render uses none of
# the C library's functions that load modules (name service lookups, iconv, dlopen).
# Nothing beyond the Rust toolchain and glibc's static libraries (libc6-dev) is needed.
#
# Elsewhere (macOS, musl hosts, other systems) this is `cargo build --release`'s binary.
# Output is byte-identical either way: conformance/run.sh checks the binary this prints.
# The binary is copied into target/release-static/ (the next `cargo build --release`
# links target/release/'s dynamic one again). Its kind is written to stderr.
# The Dockerfile's image is `cargo build --release`'s (distroless "cc" holds glibc).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
target=${CARGO_TARGET_DIR:-$root/target}
host=$(rustc -vV | sed -n 's/^host: //p')
case "$host" in
  *-linux-gnu*)
    cargo rustc --release --quiet --bin capi-render -- -C target-feature=+crt-static
    echo "build-release: static, glibc ($host)" >&2
    ;;
  *)
    cargo build --release --quiet --bin capi-render
    echo "build-release: cargo build --release ($host)" >&2
    ;;
esac
built=$target/release/capi-render
mkdir -p "$target/release-static"
cp "$built" "$target/release-static/capi-render.new"
mv "$target/release-static/capi-render.new" "$target/release-static/capi-render"
echo "$target/release-static/capi-render"
