# capi-render in a small image, for CI jobs and the Argo CD CMP sidecar (deploy/argocd/).
#
#   docker build -t capi-render .        # or: podman build -t capi-render .
#   docker run --rm -v "$PWD:/work" -w /work capi-render render -f capi/providers.yaml \
#       --repository capi/repository --stdout
#
# Stage 1 builds the release binary with the rust image (Debian bookworm); stage 2 is
# distroless "cc" (glibc and libgcc_s, which the binary links; no shell, no package
# manager) holding just the binary, run as the non-root user.
ARG RUST_VERSION=1.89

FROM docker.io/library/rust:${RUST_VERSION}-slim-bookworm AS build
WORKDIR /src
# Only what `cargo build` needs (.dockerignore keeps the rest out of the context).
COPY Cargo.toml Cargo.lock build.rs ./
COPY src ./src
# No debug info and a stripped binary: the release profile keeps line tables for
# local profiling, the image does not need them.
ENV CARGO_PROFILE_RELEASE_DEBUG=false \
    CARGO_PROFILE_RELEASE_STRIP=true
RUN cargo build --release --locked --bin capi-render

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/target/release/capi-render /usr/local/bin/capi-render
ENTRYPOINT ["/usr/local/bin/capi-render"]
CMD ["--help"]
