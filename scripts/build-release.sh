#!/usr/bin/env bash
# Build capi-render's release binary and print its path:
#
#   capi=$(scripts/build-release.sh)     # …/target/release-static/capi-render on Linux/glibc
#
# On Linux with glibc the binary is linked statically (`-C target-feature=+crt-static`)
# and position-dependent (build.rs links the binary `-no-pie`; `-C relocation-model=static`
# makes rustc link it `-static`, not `-static-pie`). Nothing is loaded or relocated at
# start: no dynamic loader mapping libc, libm and libgcc_s and binding their symbols.
# That was 0.4-0.6 ms of every run on the 2-core CI machine: a one-Cluster `topology plan`
# went from 3.55 to 2.98 ms and `--version` from 1.8 to 1.4 ms (README "Performance").
# The binary needs no libraries at run time; capi-render uses none of glibc's functions
# that load modules when linked statically (name service lookups, iconv, dlopen).
#
# Why a script and not `cargo build --release`: cargo passes RUSTFLAGS (and a config's
# target rustflags) to every crate it builds for the host unless `--target` is given,
# proc-macro crates (clap's and serde's derives) included, and rustc cannot make a
# proc-macro with crt-static ("cannot produce proc-macro … as the target … does not
# support these crate types"). `cargo rustc` gives the flags to the binary's own
# compilation and link only; its dependencies are the `cargo build --release` ones.
# The binary is copied out of target/release/ (the next `cargo build --release` links
# the dynamic one there again) into target/release-static/.
#
# Elsewhere (macOS, musl, other systems) this is `cargo build --release`'s binary.
# The Dockerfile's image is `cargo build --release`'s (distroless "cc" holds glibc).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
target=${CARGO_TARGET_DIR:-$root/target}
case "$(rustc -vV | sed -n 's/^host: //p')" in
  *-linux-gnu*)
    cargo rustc --release --quiet --bin capi-render -- \
      -C target-feature=+crt-static -C relocation-model=static
    ;;
  *)
    cargo build --release --quiet --bin capi-render
    ;;
esac
mkdir -p "$target/release-static"
cp "$target/release/capi-render" "$target/release-static/capi-render.new"
mv "$target/release-static/capi-render.new" "$target/release-static/capi-render"
echo "$target/release-static/capi-render"
