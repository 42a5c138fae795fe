#!/usr/bin/env bash
# `ome-render diff --base-ref` and the GitHub Action's script on a changed copy of OME's own
# catalog (../shared/ome-catalog), as a pull request to a GitOps repository would change it.
#
# 1. A Git repository holds the catalog's models and runtimes and every sample that names its
#    runtime and renders (scripts/catalog-check.sh lists the refused ones); the second file of
#    each duplicate (four runtime names, two sample InferenceServices) is left out, as
#    SEMANTICS.md#choice-duplicates requires. That is the base commit.
# 2. The pull request: one runtime gets a new image, one model a new storage path, one sample
#    names another runtime, and a settings file changes the termination grace period of every
#    pod.
# 3. `ome-render diff --base-ref` must name each change in its impact; the action's script,
#    run with a simulated runner (no comment), must write the same report to the job summary.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
catalog=${CATALOG:-../shared/ome-catalog}
bin=$root/${BIN:-target/release/ome-render}
[ -d "$catalog" ] || { echo "catalog-diff: $catalog not found" >&2; exit 2; }
[ -x "$bin" ] || cargo build --release --quiet
work=$root/target/catalog-diff
rm -rf "$work"; mkdir -p "$work/repo/samples" "$work/runner"
repo=$work/repo
cp -r "$catalog/models" "$catalog/runtimes" "$repo/"
refused=" CohereForAI/c4ai-command-r-v01.yaml LGAI-EXAONE/exaone-3-5-7-8b-instruct-isvc.yaml meta/llama3-3-70b-instruct.yaml mistralai/mistral-7b-instruct-v0-2.yaml mistralai/mistral-small-3-1-24b-instruct-2503.yaml mistralai/mixtral-8x7b-instruct-v0-1.yaml "
for sample in $(grep -l "runtime:" -r "$catalog/samples" | sort); do
  rel=${sample#"$catalog/samples/isvc/"}
  case "$refused" in *" $rel "*) continue ;; esac
  mkdir -p "$repo/samples/$(dirname "$rel")"
  cp "$sample" "$repo/samples/$rel"
done
# The second definition of each duplicate goes.
"$bin" -q --error-format json "$repo" >/dev/null 2>"$work/dups.json" || true
python3 - "$work/dups.json" >"$work/dups.txt" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    if d["severity"] == "error":
        if d["code"] != "ome::load::duplicate":
            sys.exit(f"unexpected error: {line}")
        print(d["file"])
PY
dups=$(wc -l <"$work/dups.txt")
[ "$dups" -eq 6 ] || { echo "catalog-diff: expected 6 duplicates, got $dups" >&2; cat "$work/dups.txt" >&2; exit 1; }
xargs rm <"$work/dups.txt"
"$bin" -q "$repo" >/dev/null 2>&1 || { echo "catalog-diff: the base does not render" >&2; exit 1; }
g() { git -C "$repo" -c user.name=catalog-diff -c user.email=catalog-diff@example.com -c commit.gpgsign=false "$@"; }
g init -q
g add -A; g commit -qm "OME's catalog"
base=$(g rev-parse HEAD)

runtime=$(grep -rl "name: srt-llama-3-1-8b-instruct$" "$repo/runtimes")
sed -i '0,/image: docker.io\/lmsysorg\/sglang:v0.5.5.post3-cu129-amd64/s//image: docker.io\/lmsysorg\/sglang:v0.5.6-cu129-amd64/' "$runtime"
model=$(grep -rl "^  name: vicuna-13b-v1-5$" "$repo/models")
sed -i 's|^    path: \(.*\)$|    path: \1-v2|' "$model"
sed -i 's/name: srt-vicuna-7b-v1-5$/name: srt-vicuna-13b-v1-5/' "$repo/samples/lmsys/vicuna-7b-v1-5.yaml"
printf 'terminationGracePeriodSeconds: 300\n' >"$repo/ome-render.yaml"
g add -A; g commit -qm "A pull request"

cd "$repo"
status=0
"$bin" -q diff --base-ref "$base" --exit-code . >"$work/diff.txt" 2>"$work/diff.err" || status=$?
[ "$status" -eq 3 ] || { echo "catalog-diff: expected exit 3 (differences), got $status" >&2; cat "$work/diff.err" >&2; exit 1; }
"$bin" -q diff --base-ref "$base" --format markdown . >"$work/diff.md" 2>/dev/null
"$bin" -q diff --base-ref "$base" --format json . >"$work/diff.json" 2>/dev/null
expect() { grep -qF -- "$1" "$work/diff.txt" || { echo "catalog-diff: the diff lacks: $1" >&2; sed -n '1,25p' "$work/diff.txt" >&2; exit 1; }; }
isvcs=$(grep -c "^kind: InferenceService" -r samples | awk -F: '{n += $2} END {print n}')
expect "settings changed: reaches $isvcs InferenceServices"
expect "ClusterServingRuntime/srt-llama-3-1-8b-instruct changed: reaches 1 InferenceService"
expect "ClusterBaseModel/vicuna-13b-v1-5 changed: reaches 1 InferenceService"
expect "vicuna-7b-v1-5/vicuna-7b-v1-5: was ClusterServingRuntime/srt-vicuna-7b-v1-5, now ClusterServingRuntime/srt-vicuna-13b-v1-5"
expect "+        image: docker.io/lmsysorg/sglang:v0.5.6-cu129-amd64"
expect "+      terminationGracePeriodSeconds: 300"
[ "$(git worktree list | wc -l)" -eq 1 ] || { echo "catalog-diff: a worktree was left behind" >&2; exit 1; }
[ -z "$(git status --porcelain)" ] || { echo "catalog-diff: the working tree changed" >&2; exit 1; }

# The action's script, as the runner starts it on this pull request (no comment).
printf '{"pull_request":{"number":1,"base":{"sha":"%s"}},"repository":{"full_name":"acme/gitops"}}\n' "$base" >"$work/runner/event.json"
: >"$work/runner/summary.md"; : >"$work/runner/output.txt"
GITHUB_EVENT_PATH=$work/runner/event.json GITHUB_EVENT_NAME=pull_request GITHUB_REPOSITORY=acme/gitops \
GITHUB_STEP_SUMMARY=$work/runner/summary.md GITHUB_OUTPUT=$work/runner/output.txt RUNNER_TEMP=$work/runner \
OME_RENDER=$bin INPUT_PATHS=. INPUT_COMMENT=false INPUT_TOKEN= \
  python3 "$root/scripts/action.py" diff >"$work/action.log"
grep -q "^differences=true$" "$work/runner/output.txt" || { echo "catalog-diff: the action saw no differences" >&2; exit 1; }
for line in "- settings changed: **reaches $isvcs InferenceServices**" \
    "  - <code>vicuna-7b-v1-5/vicuna-7b-v1-5</code>: was <code>ClusterServingRuntime/srt-vicuna-7b-v1-5</code>, now <code>ClusterServingRuntime/srt-vicuna-13b-v1-5</code>"; do
  grep -qF -- "$line" "$work/runner/summary.md" || { echo "catalog-diff: the job summary lacks: $line" >&2; exit 1; }
done
echo "catalog-diff: $(sed -n 1p "$work/diff.txt" | sed 's/^ome-render diff [^:]*: //')"
echo "catalog-diff: markdown $(wc -c <"$work/diff.md") bytes, json $(wc -c <"$work/diff.json") bytes; the action's job summary $(wc -c <"$work/runner/summary.md") bytes"
