#!/usr/bin/env bash
# Benchmark of `ome-render diff` against one render, on a generated GitOps repository and a
# copy of it where a few runtimes and models changed (what a pull request looks like):
#
#   scripts/bench-diff.sh [ISVCS RUNTIMES MODELS [RUNS]]     (default: 10000 1000 1000 5)
#
# The copy changes 5 runtimes (an argument), 5 models (the storage path) and the priority of
# one runtime (which moves auto-selections). Runs alternate on the same machine in the same
# minute; prints each run's wall time and peak memory, the medians, their ratio, and the
# diff's own stage timings. See BENCHMARKS.md ("diff").
set -euo pipefail
cd "$(dirname "$0")/.."
isvcs=${1:-10000}; runtimes=${2:-1000}; models=${3:-1000}; runs=${4:-5}
bench=${BENCH:-../shared/bench}
[ -f "$bench/gen.py" ] || { echo "bench-diff: $bench/gen.py not found" >&2; exit 2; }
work=target/bench
corpus=$work/corpus-$isvcs-$runtimes-$models
changed=$corpus-changed
mkdir -p "$work"
[ -d "$corpus" ] || python3 "$bench/gen.py" "$corpus" --isvcs "$isvcs" --runtimes "$runtimes" --models "$models" --seed 1 >/dev/null
rm -rf "$changed"; cp -r "$corpus" "$changed"
find "$changed/runtimes" -name '*.yaml' -path '*srt*' | sort | awk 'NR <= 5' |
  xargs sed -i 's/--mem-frac=0.9$/--mem-frac=0.85/'
find "$changed/runtimes" -name '*.yaml' -path '*vllm*' | sort | awk 'NR == 1' |
  xargs sed -i '0,/priority: 1$/s//priority: 9/'
find "$changed/models" -name '*.yaml' | sort | awk 'NR <= 5' |
  xargs sed -i 's|path: /raid/models/|path: /raid/models-v2/|'
cargo build --release --quiet
ome=target/release/ome-render

measure() { # label, command...: prints "label seconds peakKiB"
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" >/dev/null 2>&1
  echo "$label $(cat "$work/time.txt")"
}
: >"$work/diff-runs.txt"
for _ in $(seq "$runs"); do
  measure render "$ome" -q "$changed" | tee -a "$work/diff-runs.txt"
  measure diff "$ome" -q diff "$corpus" "$changed" | tee -a "$work/diff-runs.txt"
done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for label in render diff; do
  t=$(awk -v l="$label" '$1==l {print $2}' "$work/diff-runs.txt" | median)
  m=$(awk -v l="$label" '$1==l {print $3}' "$work/diff-runs.txt" | median)
  echo "median $label: ${t} s, peak $((m / 1024)) MiB"
  eval "median_$label=$t"
done
echo "diff / render: $(awk -v d="$median_diff" -v r="$median_render" 'BEGIN {printf "%.2f", d / r}')"
"$ome" -q diff --timings "$corpus" "$changed" 2>&1 >"$work/diff.txt" | grep '^timing:'
head -12 "$work/diff.txt"
