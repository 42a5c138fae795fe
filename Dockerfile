# syntax=docker/dockerfile:1
# ome-render's image: the two statically linked binaries in an empty image, nothing else.
#
#   docker build -t ome-render .                      # builds the binaries in the builder stage
#   docker run --rm -v "$PWD/manifests:/work:ro" ome-render render .
#
# The entrypoint is ome-render-krm: with no arguments it is the KRM function (kustomize's and
# kpt's container functions pass none), with arguments it is ome-render. The same image is
# the Argo CD plugin's sidecar (deploy/argocd), which runs argocd-cmp-server instead.
#
# To package binaries built beforehand (as scripts/image-test.sh does, where no base image
# can be pulled), build with `--build-arg BINARIES=prebuilt`: the builder stage is skipped
# and the binaries come from target/x86_64-unknown-linux-gnu/release/. The release workflow
# (.github/workflows/release.yml) builds with `--build-arg BINARIES=released` for
# linux/amd64 and linux/arm64: the static musl binaries of the release archives, put in
# target/image/<platform>/ (the stages copy files only, so no emulation is needed).

ARG BINARIES=build
ARG RUST_VERSION=1.95

# The builder: the same cargo command as CI's static build (scripts/image-test.sh).
FROM docker.io/library/rust:${RUST_VERSION}-bookworm AS build
WORKDIR /src
COPY . .
RUN RUSTFLAGS='-C target-feature=+crt-static' \
      cargo build --release --locked --target x86_64-unknown-linux-gnu \
 && mkdir -p /out \
 && cp target/x86_64-unknown-linux-gnu/release/ome-render \
       target/x86_64-unknown-linux-gnu/release/ome-render-krm /out/

# Binaries built beforehand with that command.
FROM scratch AS prebuilt
COPY target/x86_64-unknown-linux-gnu/release/ome-render \
     target/x86_64-unknown-linux-gnu/release/ome-render-krm /out/

# The release archives' binaries, per platform.
FROM scratch AS released
ARG TARGETPLATFORM
COPY target/image/${TARGETPLATFORM}/ome-render target/image/${TARGETPLATFORM}/ome-render-krm /out/

FROM ${BINARIES} AS binaries

FROM scratch AS runtime
ARG VERSION=0.2.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="ome-render" \
      org.opencontainers.image.description="Render OME (Open Model Engine) resources offline into the Kubernetes objects OME's controller would create; a KRM function and an Argo CD plugin" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
COPY --chmod=0755 --from=binaries /out/ome-render /out/ome-render-krm /usr/local/bin/
# kpt and kustomize run container functions as `nobody`, which needs a passwd entry.
COPY --chmod=0644 deploy/image/passwd deploy/image/group /etc/
USER 65532:65532
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/ome-render-krm"]
