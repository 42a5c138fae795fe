#!/usr/bin/env bash
# Renders OME's own catalog (../shared/ome-catalog): the models and runtimes with each
# sample InferenceService that names its runtime, one at a time.
#
# - The catalog defines four runtime names twice: rendering models + runtimes alone must fail
#   with exactly those duplicates (SEMANTICS.md#choice-duplicates); the second file of each pair is then left
#   out.
# - Every sample must render, except those OME itself refuses, which must fail with the
#   expected diagnostic code (listed below).
# - Everything rendered must pass the Kubernetes API schemas (kubernetes-validate, when
#   installed; ScaledObjects and LeaderWorkerSets against tests/integration/schemas).
set -euo pipefail
cd "$(dirname "$0")/.."
catalog=${CATALOG:-../shared/ome-catalog}
bin=${BIN:-target/release/ome-render}
[ -d "$catalog" ] || { echo "catalog-check: $catalog not found" >&2; exit 2; }
[ -x "$bin" ] || cargo build --release --quiet
work=target/catalog-check
rm -rf "$work"; mkdir -p "$work"

# Samples OME refuses too, with the code ome-render must report.
declare -A refused=(
  [CohereForAI/c4ai-command-r-v01.yaml]=ome::render::placeholder        # a Jinja chat template in command
  [LGAI-EXAONE/exaone-3-5-7-8b-instruct-isvc.yaml]=ome::input::invalid-field  # no spec.model.name (misspelt fields)
  [meta/llama3-3-70b-instruct.yaml]=ome::input::invalid-field           # a decoder the runtime has no config for
  [mistralai/mistral-7b-instruct-v0-2.yaml]=ome::isvc::invalid   # minReplicas 0 without KEDA (InvalidScaleToZero)
  [mistralai/mistral-small-3-1-24b-instruct-2503.yaml]=ome::isvc::invalid
  [mistralai/mixtral-8x7b-instruct-v0-1.yaml]=ome::isvc::invalid
)
# Of those, the ones whose help must show the fix: the KEDA autoscaler block to add.
declare -A fixed_by=(
  [mistralai/mistral-7b-instruct-v0-2.yaml]='class: KEDA'
  [mistralai/mistral-small-3-1-24b-instruct-2503.yaml]='class: KEDA'
  [mistralai/mixtral-8x7b-instruct-v0-1.yaml]='class: KEDA'
)

if "$bin" -q --error-format json "$catalog/models" "$catalog/runtimes" >/dev/null 2>"$work/dups.json"; then
  echo "catalog-check: expected the duplicate runtimes to be reported" >&2; exit 1
fi
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
[ "$dups" -eq 4 ] || { echo "catalog-check: expected 4 duplicates, got $dups" >&2; cat "$work/dups.txt" >&2; exit 1; }
excludes=()
while read -r f; do excludes+=(--exclude "$f"); done <"$work/dups.txt"

ok=0; refused_ok=0; bad=0
: >"$work/all.yaml"
for sample in $(grep -l "runtime:" -r "$catalog/samples" | sort); do
  rel=${sample#"$catalog/samples/isvc/"}
  if "$bin" -q --error-format json "${excludes[@]}" "$catalog/models" "$catalog/runtimes" "$sample" >"$work/out.yaml" 2>"$work/err.json"; then
    if [ -n "${refused[$rel]:-}" ]; then echo "UNEXPECTED SUCCESS $rel"; bad=$((bad+1)); continue; fi
    ok=$((ok+1)); printf -- '---\n' >>"$work/all.yaml"; cat "$work/out.yaml" >>"$work/all.yaml"
  else
    want=${refused[$rel]:-}
    help=${fixed_by[$rel]:-}
    if [ -n "$want" ] && grep -q "\"severity\":\"error\",\"code\":\"$want\"" "$work/err.json" \
        && { [ -z "$help" ] || grep "\"code\":\"$want\"" "$work/err.json" | grep -qF "$help"; }; then
      refused_ok=$((refused_ok+1))
    else
      echo "FAIL $rel"; grep '"error"' "$work/err.json" | head -3; bad=$((bad+1))
    fi
  fi
done
echo "catalog-check: $dups duplicate runtime names reported; $ok samples rendered; $refused_ok refused as OME refuses them; $bad unexpected"
validate=target/test-tools/python/bin/kubernetes-validate   # by scripts/install-test-tools.sh
[ -x "$validate" ] || validate=$(command -v kubernetes-validate || true)
if [ -n "$validate" ]; then
  # ScaledObjects and LeaderWorkerSets have no schema in kubernetes-validate: crds.py checks
  # them, and turns the LeaderWorkerSets' pod templates into PodTemplates for it.
  python=$(dirname "$validate")/python   # the tools' environment (PyYAML, jsonschema)
  [ -x "$python" ] || python=python3
  "$python" tests/integration/crds.py <"$work/all.yaml" >"$work/checked.yaml" 2>"$work/crds.txt" \
    || { head -20 "$work/crds.txt"; exit 1; }
  "$validate" --strict -k 1.33.0 "$work/checked.yaml" >"$work/validate.txt" 2>&1 || { grep -v "^INFO" "$work/validate.txt" | head -20; exit 1; }
  ! grep -q "Couldn't find schema" "$work/validate.txt" || { grep "Couldn't find schema" "$work/validate.txt" | head; exit 1; }
  echo "catalog-check: $(cat "$work/crds.txt" "$work/validate.txt" | grep -c 'passed for resource') rendered objects pass kubernetes-validate --strict (ScaledObjects and LeaderWorkerSets: tests/integration/schemas)"
fi
[ "$bad" -eq 0 ]
