#!/usr/bin/env bash
# The release notes of one version: CHANGELOG.md's section `## [VERSION] ...`, without its
# heading, up to the next `## ` heading or the link references at the end. Fails when the
# section is missing or empty, so a tag cannot be released without its notes.
#
#   scripts/dist-notes.sh 0.3.0 >notes.md      (the release workflow; .ci/run checks it)
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?usage: scripts/dist-notes.sh VERSION}
notes=$(awk -v want="## [$version]" '
  index($0, want) == 1 { found = 1; next }
  found && (/^## / || /^\[[^]]*\]: /) { exit }
  found { print }
' CHANGELOG.md | sed -e '/./,$!d')
if [ -z "${notes//[[:space:]]/}" ]; then
  echo "dist-notes: CHANGELOG.md has no notes for $version (a '## [$version] - DATE' section)" >&2
  exit 1
fi
printf '%s\n' "$notes"
