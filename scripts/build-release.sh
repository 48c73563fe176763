#!/usr/bin/env bash
# Build capi-render's release binary and print its path:
#
#   capi=$(scripts/build-release.sh)     # …/target/release-static/capi-render on Linux/glibc
#
# On Linux the binary is static and position-dependent, so nothing is loaded or
# relocated at start (build.rs links the binary `-no-pie`; `-C relocation-model=static`
# makes rustc link it `-static`, not `-static-pie`, which with `-no-pie` crashed):
#
#   - on x86_64 with musl (target x86_64-unknown-linux-musl installed, and musl-gcc for mimalloc's
#     C: `rustup target add x86_64-unknown-linux-musl`, Debian's musl-tools; `.ci/run`
#     installs both): `cargo build --release --target x86_64-unknown-linux-musl`. musl's
#     start-up is 0.5 ms shorter than glibc's: glibc runs about sixty `cpuid`s at every
#     start to size the caches, each a trip to the hypervisor on a virtual machine.
#     musl's slow `memcpy`/`memmove`/`memset` are replaced by src/musl_mem.rs's. Measured
#     (README "Performance"): `topology plan` 2.64 -> 2.12 ms, `generate provider -c
#     kubeadm` 9.3 -> 7.9 ms, `--version` 1.22 -> 0.67 ms; fleets unchanged.
#   - otherwise with glibc (`-C target-feature=+crt-static`, through `cargo rustc`:
#     cargo gives RUSTFLAGS to proc-macro crates too unless `--target` is passed, and
#     rustc cannot build clap's and serde's derives static, "cannot produce proc-macro").
#     That still saves the dynamic loader's 0.4-0.6 ms a run.
#
# CAPI_RELEASE_LIBC=musl|glibc picks one (musl fails when its target is missing).
# Output is byte-identical either way: conformance/run.sh checks the binary this prints.
# The binary needs no library at run time; capi-render uses none of the C library's
# functions that load modules (name service lookups, iconv, dlopen).
# The binary is copied into target/release-static/ (the next `cargo build --release`
# links target/release/'s dynamic one again). Its kind is written to stderr.
#
# Elsewhere (macOS, other systems) this is `cargo build --release`'s binary.
# The Dockerfile's image is `cargo build --release`'s (distroless "cc" holds glibc).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
target=${CARGO_TARGET_DIR:-$root/target}
host=$(rustc -vV | sed -n 's/^host: //p')
musl=x86_64-unknown-linux-musl
libc=${CAPI_RELEASE_LIBC:-}
case "$libc" in
  ""|musl|glibc) ;;
  *) echo "build-release: CAPI_RELEASE_LIBC=$libc: say musl or glibc (or leave it unset)" >&2; exit 2 ;;
esac
case "$libc:$host" in
  :*-linux-gnu*) libc=glibc ;;
esac
if [ "$libc:$host" = glibc:x86_64-unknown-linux-gnu ] && [ -z "${CAPI_RELEASE_LIBC:-}" ]; then
  if rustup target list --installed 2>/dev/null | grep -qx "$musl" &&
     { command -v musl-gcc || command -v x86_64-linux-musl-gcc; } >/dev/null; then
    libc=musl
  fi
fi
case "$libc" in
  musl)
    CARGO_TARGET_X86_64_UNKNOWN_LINUX_MUSL_RUSTFLAGS="-C relocation-model=static" \
      cargo build --release --quiet --target "$musl" --bin capi-render
    built=$target/$musl/release/capi-render
    echo "build-release: static, $musl" >&2
    ;;
  glibc)
    cargo rustc --release --quiet --bin capi-render -- \
      -C target-feature=+crt-static -C relocation-model=static
    built=$target/release/capi-render
    echo "build-release: static, glibc" >&2
    ;;
  "")
    cargo build --release --quiet --bin capi-render
    built=$target/release/capi-render
    echo "build-release: cargo build --release ($host)" >&2
    ;;
esac
mkdir -p "$target/release-static"
cp "$built" "$target/release-static/capi-render.new"
mv "$target/release-static/capi-render.new" "$target/release-static/capi-render"
echo "$target/release-static/capi-render"
