#!/usr/bin/env bash
# Installs the tools the tests run that `cargo test` does not install itself (CONTRIBUTING.md,
# "Tests"): zsh and fish, whose completion of `ome-render` tests/integration/completions.rs
# checks with the real shells. Idempotent: a tool already on PATH is left alone. Versions are
# Debian 12's (zsh 5.9, fish 3.6); apt needs root, as CI runs.
set -euo pipefail

missing=()
for tool in zsh fish; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
if [ "${#missing[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends "${missing[@]}" \
    || { apt-get update && apt-get install -y --no-install-recommends "${missing[@]}"; }
fi
zsh --version
fish --version
