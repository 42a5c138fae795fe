#!/usr/bin/env bash
# The container image, built and run without a Docker engine: the static binaries (the
# Dockerfile's builder command), the Dockerfile's final stage built with buildah from them
# (`--build-arg BINARIES=prebuilt`; no base image can be pulled here), then checks of the
# image's configuration and runs inside it: `render` of the example (the same bytes as on
# the host), the KRM function on standard input, and kpt running the image as a container
# function through podman.
#
#   scripts/image-test.sh          (as root: it installs buildah, podman and runc with apt)
#
# Run by .ci/run. Prints one line per check and "N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD

if [ "$(id -u)" != 0 ]; then
  echo "image-test: needs root (apt-get, buildah's chroot isolation)" >&2
  exit 2
fi
if ! command -v buildah >/dev/null || ! command -v podman >/dev/null || ! command -v runc >/dev/null; then
  echo "--- installing buildah, podman, runc (Debian)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq buildah podman runc >/dev/null || exit 2
fi

echo "--- static binaries"
target=target/x86_64-unknown-linux-gnu/release
# The Dockerfile's builder command. --target is required: with crt-static and no --target,
# build scripts and proc-macros would be linked statically too, and fail.
RUSTFLAGS='-C target-feature=+crt-static' \
  cargo build --release --locked --quiet --target x86_64-unknown-linux-gnu || exit 2

work=$root/target/image-test
rm -rf "$work"
mkdir -p "$work"
# vfs storage and chroot isolation: what works without a daemon, overlay or cgroup
# delegation. runc with cgroupfs and small ulimits for podman (Debian's crun fails here).
cat >"$work/storage.conf" <<EOF
[storage]
driver = "vfs"
graphroot = "$work/storage"
runroot = "$work/run"
EOF
cat >"$work/containers.conf" <<'EOF'
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
export CONTAINERS_STORAGE_CONF=$work/storage.conf CONTAINERS_CONF=$work/containers.conf
export BUILDAH_ISOLATION=chroot

pass=0 fail=0
check() { # name, command...
  local name=$1; shift
  if "$@"; then pass=$((pass + 1)); echo "ok   $name"; else fail=$((fail + 1)); echo "FAIL $name"; fi
}
contains() { grep -qF -- "$2" "$1"; }

for bin in ome-render ome-render-krm; do
  check "$bin is statically linked" bash -c "ldd '$target/$bin' 2>&1 | grep -q 'statically linked\|not a dynamic executable'"
done

echo "--- the image"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
image=localhost/ome-render:test
bud() {
  buildah bud -q --timestamp 0 --layers=false -f Dockerfile --target runtime \
    --build-arg BINARIES=prebuilt --build-arg VERSION="$version" --build-arg REVISION="$revision" \
    -t "$image" . >"$work/bud.log" 2>&1
}
check "buildah builds the final stage from the prebuilt binaries" bud
buildah inspect --type image "$image" >"$work/inspect.json" 2>/dev/null
jq -c '.OCIv1.config' "$work/inspect.json" >"$work/config.json" 2>/dev/null
check "runs as a non-root user (65532)" contains "$work/config.json" '"User":"65532:65532"'
check "ome-render-krm is the entrypoint" contains "$work/config.json" '"Entrypoint":["/usr/local/bin/ome-render-krm"]'
check "OCI labels: title, version, revision, licenses" bash -c "
  jq -e '.Labels[\"org.opencontainers.image.title\"] == \"ome-render\"
     and .Labels[\"org.opencontainers.image.version\"] == \"$version\"
     and .Labels[\"org.opencontainers.image.revision\"] == \"$revision\"
     and .Labels[\"org.opencontainers.image.licenses\"] == \"Apache-2.0\"' '$work/config.json' >/dev/null"
# The image holds the two binaries and the passwd/group files, nothing else.
c=$(buildah from -q "$image")
mnt=$(buildah mount "$c")
(cd "$mnt" && find . -mindepth 1 -not -type d | sort) >"$work/files.txt"
buildah umount "$c" >/dev/null
check "the image holds only the binaries and /etc/passwd, /etc/group" bash -c "
  diff <(printf '%s\n' ./etc/group ./etc/passwd ./usr/local/bin/ome-render ./usr/local/bin/ome-render-krm) '$work/files.txt'"

echo "--- inside the image"
"$target/ome-render" -q examples/llama-demo >"$work/host.yaml"
buildah run -v "$root/examples/llama-demo:/work:ro" "$c" -- /usr/local/bin/ome-render-krm -q render . \
  >"$work/image.yaml" 2>"$work/image.err"
check "render of the example inside the image (exit 0)" test $? = 0
check "the same bytes as on the host" cmp -s "$work/host.yaml" "$work/image.yaml"
check "the rendering holds a Deployment" contains "$work/image.yaml" "kind: Deployment"
# The KRM function: a ResourceList on standard input, no arguments.
{
  printf 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n'
  # The example's objects; its settings file is no KRM resource (under kpt and kustomize the
  # function's config names settings), so it stays out.
  for f in examples/llama-demo/*.yaml; do
    [ "$(basename "$f")" = ome-render.yaml ] && continue
    grep -v '^#' "$f" | sed '1s/^/- /; 2,$s/^/  /'
  done
} >"$work/list.yaml"
buildah run "$c" -- /usr/local/bin/ome-render-krm <"$work/list.yaml" >"$work/krm.yaml" 2>"$work/krm.err"
check "the KRM function inside the image (exit 0)" test $? = 0
check "it answers with a ResourceList holding the Deployment" bash -c "
  head -2 '$work/krm.yaml' | grep -q 'kind: ResourceList' && grep -q '  kind: Deployment' '$work/krm.yaml'"
echo 'kind: [' | buildah run "$c" -- /usr/local/bin/ome-render-krm >"$work/bad.yaml" 2>/dev/null
check "an error exits 1 inside the image too" test $? = 1
buildah rm "$c" >/dev/null

echo "--- kpt runs the image as a container function (podman)"
pkg=$work/pkg
mkdir -p "$pkg"
for f in examples/llama-demo/*.yaml; do
  [ "$(basename "$f")" = ome-render.yaml ] || cp "$f" "$pkg/"
done
KPT_FN_RUNTIME=podman kpt fn eval "$pkg" --image "$image" --image-pull-policy never -o unwrap \
  >"$work/kpt.yaml" 2>"$work/kpt.err"
check "kpt fn eval --image (exit 0, as user nobody)" test $? = 0
check "kpt's output holds the rendered Deployment and no InferenceService" bash -c "
  grep -q '^kind: Deployment' '$work/kpt.yaml' && ! grep -q '^kind: InferenceService' '$work/kpt.yaml'"

buildah rmi -a -f >/dev/null 2>&1
if [ "$fail" != 0 ]; then
  for f in bud.log image.err krm.err kpt.err; do
    [ -s "$work/$f" ] && { echo "--- $f"; tail -20 "$work/$f"; }
  done
fi
echo "image: $pass passed, $fail failed"
[ "$fail" = 0 ]
