#!/usr/bin/env bash
# One release archive: ome-render-<triple>.tar.gz and its .sha256, as the release workflow
# (.github/workflows/release.yml) publishes them and the Action (scripts/action.py) installs
# them.
#
#   scripts/dist.sh TRIPLE [OUT_DIR]        builds with cargo --target TRIPLE, then packs
#   BINARIES=DIR scripts/dist.sh TRIPLE     packs DIR/ome-render and DIR/ome-render-krm
#
# The archive holds one directory, ome-render-<triple>/, with both binaries, LICENSE,
# README.md, CHANGELOG.md, completions/ (bash, zsh, fish) and man/ome-render.1. The binaries
# must run on the machine that packs them (completions and the man page come from
# `ome-render completions` and `ome-render man`), unless OME_RENDER_DOCS names another build
# of the same source that does. The archive is reproducible: entries sorted, owner 0, modes
# 0755/0644, times the commit's (SOURCE_DATE_EPOCH), gzip without a name or time. Linux
# triples are musl (static); their C code (mimalloc) is compiled with musl-gcc when present.
# Needs bash, python3 and, unless BINARIES is set, cargo. Prints the archive's path.
set -euo pipefail
cd "$(dirname "$0")/.."

triple=${1:?usage: scripts/dist.sh TRIPLE [OUT_DIR]}
out=${2:-target/dist}
case $triple in
  *[!A-Za-z0-9_.-]*) echo "dist: not a target triple: $triple" >&2; exit 2 ;;
esac

if [ -n "${BINARIES:-}" ]; then
  bin=$BINARIES
else
  case $triple in
    *-linux-musl)
      # cc-rs looks for <arch>-linux-musl-gcc; Debian and Ubuntu's musl-tools ship musl-gcc
      # for the machine's own architecture.
      cc_var=CC_$(echo "$triple" | tr - _)
      if [ -z "${!cc_var:-}" ] && command -v musl-gcc >/dev/null; then
        export "$cc_var=musl-gcc"
      fi
      ;;
  esac
  cargo build --release --locked --target "$triple"
  bin=target/$triple/release
fi
docs=${OME_RENDER_DOCS:-$bin/ome-render}
for f in "$bin/ome-render" "$bin/ome-render-krm"; do
  [ -x "$f" ] || { echo "dist: $f is not an executable" >&2; exit 1; }
done

name=ome-render-$triple
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$name/completions" "$stage/$name/man"
cp "$bin/ome-render" "$bin/ome-render-krm" LICENSE README.md CHANGELOG.md "$stage/$name/"
"$docs" completions bash >"$stage/$name/completions/ome-render.bash"
"$docs" completions zsh >"$stage/$name/completions/_ome-render"
"$docs" completions fish >"$stage/$name/completions/ome-render.fish"
"$docs" man >"$stage/$name/man/ome-render.1"

mkdir -p "$out"
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
python3 - "$stage" "$name" "$out/$name.tar.gz" "$epoch" <<'EOF'
import gzip, hashlib, os, sys, tarfile
stage, name, archive, epoch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
paths = []
for root, dirs, files in os.walk(os.path.join(stage, name)):
    dirs.sort()
    for entry in sorted(dirs + files):
        paths.append(os.path.join(root, entry))
with open(archive, "wb") as raw:
    with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for path in [os.path.join(stage, name)] + sorted(paths):
                info = tar.gettarinfo(path, arcname=os.path.relpath(path, stage))
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                info.mtime = epoch
                executable = info.isdir() or os.access(path, os.X_OK)
                info.mode = 0o755 if executable else 0o644
                if info.isfile():
                    with open(path, "rb") as f:
                        tar.addfile(info, f)
                else:
                    tar.addfile(info)
with open(archive, "rb") as f:
    digest = hashlib.sha256(f.read()).hexdigest()
with open(archive + ".sha256", "w") as f:
    f.write(f"{digest}  {os.path.basename(archive)}\n")
EOF
echo "$out/$name.tar.gz"
