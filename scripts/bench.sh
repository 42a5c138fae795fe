#!/usr/bin/env bash
# Benchmark: ome-render against the YAML floor (pure YAML I/O, no logic) on a generated
# GitOps repository, and the KRM function (ome-render-krm) on the same repository as one
# ResourceList (scripts/krm-list.py), alternating runs on the same machine in the same minute.
#
#   scripts/bench.sh [ISVCS RUNTIMES MODELS [RUNS]]     (default: 10000 1000 1000 5)
#
# Needs ../shared/bench (gen.py and floor/) and PyYAML (the tests' target/python-tools has
# it). Prints each run's wall time, CPU time and peak memory, the medians, and ome-render's
# own stage timings. See BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
isvcs=${1:-10000}; runtimes=${2:-1000}; models=${3:-1000}; runs=${4:-5}
bench=${BENCH:-../shared/bench}
[ -f "$bench/gen.py" ] || { echo "bench: $bench/gen.py not found" >&2; exit 2; }
work=target/bench
corpus=$work/corpus-$isvcs-$runtimes-$models
mkdir -p "$work"
[ -d "$corpus" ] || python3 "$bench/gen.py" "$corpus" --isvcs "$isvcs" --runtimes "$runtimes" --models "$models" --seed 1 >/dev/null
cargo build --release --quiet
CARGO_TARGET_DIR=$work/floor-target cargo build --release --quiet \
  --manifest-path "$bench/floor/Cargo.toml" --features serde-saphyr
floor=$work/floor-target/release/yamlfloor
ome=target/release/ome-render
krm=target/release/ome-render-krm
out=$work/rendered.yaml
"$ome" -q "$corpus" >"$out" 2>/dev/null   # the floor reads the corpus plus this output
python=python3
[ -x target/python-tools/bin/python ] && python=target/python-tools/bin/python
list=$corpus.resource-list.yaml
[ -f "$list" ] || "$python" scripts/krm-list.py "$corpus" >"$list"

measure() { # label, command...: prints "label seconds peakKiB cpu-seconds"
  local label=$1; shift
  /usr/bin/time -f "%e %M %U %S" -o "$work/time.txt" "$@" >/dev/null 2>&1
  echo "$label $(awk '{print $1, $2, $3 + $4}' "$work/time.txt")"
}
: >"$work/runs.txt"
for _ in $(seq "$runs"); do
  measure floor "$floor" "$corpus" "$out" | tee -a "$work/runs.txt"
  measure ome-render "$ome" -q "$corpus" | tee -a "$work/runs.txt"
  measure krm bash -c "\"$krm\" <\"$list\"" | tee -a "$work/runs.txt"
done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for label in floor ome-render krm; do
  t=$(awk -v l="$label" '$1==l {print $2}' "$work/runs.txt" | median)
  m=$(awk -v l="$label" '$1==l {print $3}' "$work/runs.txt" | median)
  c=$(awk -v l="$label" '$1==l {print $4}' "$work/runs.txt" | median)
  echo "median $label: ${t} s, ${c} s CPU, peak $((m / 1024)) MiB"
done
echo "corpus: $(find "$corpus" -type f | wc -l) files, $(du -sb "$corpus" | cut -f1) bytes; output: $(wc -c <"$out") bytes"
"$ome" -q --timings "$corpus" 2>&1 >/dev/null | grep '^timing:'
