#!/usr/bin/env bash
# Benchmarks: ome-render against the YAML floor (pure YAML I/O, no logic) and against itself
# in the shapes users run it, each case measured as a ratio in one run, the cases interleaved,
# on the same machine in the same minute (BENCHMARKS.md).
#
#   scripts/bench.sh [RUNS]           every case, RUNS alternating runs each (default 5)
#   scripts/bench.sh --quick [RUNS]   the main corpus only (directory vs floor)
#   scripts/bench.sh --diff [RUNS]    one render vs `diff` against a changed copy, only
#   scripts/bench.sh --ingress [RUNS] one render vs the same with ingress creation enabled
#                                     (an Ingress each) and with the Gateway API, only
#
# Each timed run follows an untimed run of the same case (BENCH_WARMUP=0: none).
# Prints each case's median (and fastest) wall time and peak memory, then each ratio with its
# bound, the ratio of the fastest runs, and the figure BENCHMARKS.md records; exits 1 when a
# ratio exceeds its recorded figure by more than 20% in both (a regression), 2 when the
# yardstick is missing. Needs ../shared/bench (gen.py, floor/; BENCH=DIR elsewhere) and python3;
# corpora and the floor's build are cached under target/bench/. gen.py's corpora are made valid
# for the API server's pod checks first (scripts/bench-pods-valid.py).
set -euo pipefail
cd "$(dirname "$0")/.."
quick= diff_only= ingress_only=
if [ "${1:-}" = --quick ]; then quick=1; shift; fi
if [ "${1:-}" = --diff ]; then diff_only=1; shift; fi
if [ "${1:-}" = --ingress ]; then ingress_only=1; diff_only=1; shift; fi
runs=${1:-5}
bench=${BENCH:-../shared/bench}
[ -f "$bench/gen.py" ] || { echo "bench: $bench/gen.py not found" >&2; exit 2; }
work=target/bench
mkdir -p "$work"

corpus() { # isvcs runtimes models: prints the corpus directory, generating it once; its
  # pods made valid for the API server (scripts/bench-pods-valid.py says why)
  local dir=$work/corpus-$1-$2-$3
  [ -d "$dir" ] || python3 "$bench/gen.py" "$dir" --isvcs "$1" --runtimes "$2" --models "$3" --seed 1 >/dev/null
  python3 scripts/bench-pods-valid.py "$dir"
  echo "$dir"
}
stream_of() { # dir: one file holding every document of the corpus, in walk order
  local file=$1.stream.yaml
  if [ ! -f "$file" ]; then
    find "$1" -type f \( -name '*.yaml' -o -name '*.yml' \) | LC_ALL=C sort |
      while read -r f; do cat "$f"; printf -- '\n---\n'; done >"$file"
  fi
  echo "$file"
}

changed_copy() { # dir: a copy as a pull request changes it — 5 runtimes (the first image),
  # 5 models (the storage path), one runtime's priority (which can move auto-selections)
  local copy=$1-changed
  if [ ! -d "$copy" ]; then
    rm -rf "$copy.new"; cp -r "$1" "$copy.new"
    find "$copy.new/runtimes" -name '*.yaml' -path '*srt*' | LC_ALL=C sort | awk 'NR <= 5' |
      xargs sed -i '0,/^\( *\)image: \(.*\)$/s//\1image: \2-patched/'
    find "$copy.new/runtimes" -name '*.yaml' -path '*vllm*' | LC_ALL=C sort | awk 'NR == 1' |
      xargs sed -i '0,/priority: 1$/s//priority: 9/'
    find "$copy.new/models" -name '*.yaml' | LC_ALL=C sort | awk 'NR <= 5' |
      xargs sed -i 's|path: /raid/models/|path: /raid/models-v2/|'
    mv "$copy.new" "$copy"
  fi
  echo "$copy"
}

settings_copy() { # dir name settings: a copy of the corpus with `settings` as its
  # ome-render.yaml
  local copy=$1-$2
  if [ ! -d "$copy" ]; then
    rm -rf "$copy.new"; cp -r "$1" "$copy.new"
    printf '%s\n' "$3" >"$copy.new/ome-render.yaml"
    mv "$copy.new" "$copy"
  fi
  echo "$copy"
}

cargo build --release --quiet
ome=target/release/ome-render
main=$(corpus 10000 1000 1000)
# Each case: a label and a command (run with stdout to /dev/null, stdin from $stdin_file).
declare -a labels=() commands=()
case_() { labels+=("$1"); commands+=("$2"); }
if [ -z "$diff_only" ]; then
  CARGO_TARGET_DIR=$work/floor-target cargo build --release --quiet \
    --manifest-path "$bench/floor/Cargo.toml" --features serde-saphyr
  floor=$work/floor-target/release/yamlfloor
  out=$work/rendered.yaml
  "$ome" -q "$main" >"$out" 2>/dev/null   # the floor reads the corpus plus this output
  case_ floor "$floor $main $out"
fi
case_ dir "$ome -q $main"
if [ -n "$ingress_only" ]; then
  case_ dir-ingress "$ome -q $(settings_copy "$main" ingress 'ingress: {disableIngressCreation: false}')"
  case_ dir-gateway "$ome -q $(settings_copy "$main" gateway 'ingress: {disableIngressCreation: false, enableGatewayAPI: true, omeIngressGateway: envoy-gateway-system/ome-gateway}')"
elif [ -n "$diff_only" ]; then
  case_ diff "$ome -q diff $main $(changed_copy "$main")"
elif [ -z "$quick" ]; then
  stream=$(stream_of "$main")
  case_ stream "$ome -q $stream"
  case_ stream-json "$ome -q --error-format json $stream"
  case_ stream-github "$ome -q --error-format github $stream"
  case_ stream-human-all "$ome $stream"
  case_ dir-human-all "$ome $main"
  case_ stdin "$ome -q - <$stream"
  case_ runtimes-10k "$ome -q $(corpus 10000 10000 1000)"
  case_ isvcs-20k "$ome -q $(corpus 20000 1000 1000)"
  case_ threads-1 "env RAYON_NUM_THREADS=1 $ome -q $main"
  case_ threads-2 "env RAYON_NUM_THREADS=2 $ome -q $main"
  case_ tiny "$ome -q examples/llama-demo"
  list=$main.resourcelist.yaml   # as kpt sends it: every document an item, with its path
  python=target/test-tools/python/bin/python3   # PyYAML, by scripts/install-test-tools.sh
  [ -x "$python" ] || python=python3
  [ -f "$list" ] || "$python" scripts/krm-list.py "$main" >"$list"
  case_ krm "target/release/ome-render-krm <$list"
  case_ diff "$ome -q diff $main $(changed_copy "$main")"
fi

# Each round runs the cases in its own shuffled order (the same for the same round), so that
# no case always runs right after the floor: on this VM, the run after a process that freed
# 870 MiB spends a quarter of a second more faulting memory back in (BENCHMARKS.md). For the
# same reason each timed run comes right after an untimed run of the same command, so that
# a case pays for its own memory, not for its neighbour's; BENCH_WARMUP=0 times the runs
# cold, as they come.
warmup=${BENCH_WARMUP:-1}
order() {
  python3 -c 'import random, sys; c = list(range(int(sys.argv[2]))); random.Random(int(sys.argv[1])).shuffle(c); print(*c)' "$1" "${#labels[@]}"
}
: >"$work/runs.txt"
for round in $(seq "$runs"); do
  for i in $(order "$round"); do
    [ "$warmup" = 0 ] || bash -c "${commands[$i]} >/dev/null 2>&1" || true
    start=$EPOCHREALTIME
    /usr/bin/time -f "%M" -o "$work/time.txt" bash -c "${commands[$i]} >/dev/null 2>&1" || true
    end=$EPOCHREALTIME
    took=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f", b - a}')
    echo "${labels[$i]} $took $(cat "$work/time.txt")" >>"$work/runs.txt"
  done
done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
declare -A secs fastest mem
for label in "${labels[@]}"; do
  secs[$label]=$(awk -v l="$label" '$1==l {print $2}' "$work/runs.txt" | median)
  fastest[$label]=$(awk -v l="$label" '$1==l {print $2}' "$work/runs.txt" | sort -n | head -1)
  mem[$label]=$(awk -v l="$label" '$1==l {print $3}' "$work/runs.txt" | median)
  printf '%-18s %8s s  (fastest %s s) %6s MiB\n' "$label" "${secs[$label]}" "${fastest[$label]}" "$((mem[$label] / 1024))"
done

# Ratios: name, numerator, denominator, what is divided (s or mem), the issue's bound.
recorded() { # the figure BENCHMARKS.md records for a ratio, from its `ratio:` lines
  awk -v n="$1" '$1 == "ratio:" && $2 == n {print $3; exit}' BENCHMARKS.md
}
status=0
divide() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", (b > 0 ? a / b : 0)}'; }
over() { awk -v v="$1" -v r="$2" 'BEGIN {exit !(v > r * 1.2)}'; }   # value, recorded
# A time ratio is that of the medians; the ratio of the fastest runs is printed beside it.
# A regression is a ratio more than 20% above its recorded figure in both: on this VM one
# slow minute can move a median alone (BENCHMARKS.md), a slower build moves both.
ratio() {
  local name=$1 num=$2 den=$3 what=$4 bound=$5 value fast rec
  [ -n "${secs[$num]:-}" ] && [ -n "${secs[$den]:-}" ] || return 0
  if [ "$what" = mem ]; then
    value=$(divide "${mem[$num]}" "${mem[$den]}") fast=$value
  else
    value=$(divide "${secs[$num]}" "${secs[$den]}")
    fast=$(divide "${fastest[$num]}" "${fastest[$den]}")
  fi
  rec=$(recorded "$name")
  local verdict=""
  if [ -n "$rec" ] && over "$value" "$rec" && over "$fast" "$rec"; then
    verdict="  REGRESSION (recorded $rec)"; status=1
  elif [ -n "$rec" ]; then
    verdict="  (recorded $rec)"
  fi
  local beside=""
  [ "$what" = mem ] || beside="  fastest $fast"
  printf 'ratio: %-22s %s  bound %s%s%s\n' "$name" "$value" "$bound" "$beside" "$verdict"
}
ratio render/floor dir floor s 0.15
ratio memory/floor dir floor mem 0.30
ratio stream/dir stream dir s 1.2
ratio stream-json/dir stream-json dir s 1.2
ratio stream-github/dir stream-github dir s 1.2
ratio stream-human/dir stream-human-all dir-human-all s 1.2
ratio stdin/dir stdin dir s 1.2
ratio runtimes-10k/1k runtimes-10k dir s 1.5
ratio isvcs-20k/10k isvcs-20k dir s 2.1
ratio threads-2/1 threads-2 threads-1 s 0.625
ratio krm/dir krm dir s 1.2
ratio diff/render diff dir s 2.5
ratio ingress/render dir-ingress dir s 1.1
ratio gateway/render dir-gateway dir s 1.1
if [ -n "$ingress_only" ]; then
  exit $status
fi
if [ -n "$diff_only" ]; then
  "$ome" -q diff --timings "$main" "$(changed_copy "$main")" 2>&1 >/dev/null | grep '^timing:'
  exit $status
fi
tiny_ms() { # the bundled example's mean wall time over 50 runs, in milliseconds
  local start end
  start=$(date +%s%N)
  for _ in $(seq 50); do "$ome" -q examples/llama-demo >/dev/null 2>&1; done
  end=$(date +%s%N)
  awk -v ns=$((end - start)) 'BEGIN {printf "%.1f", ns / 50 / 1e6}'
}
echo "tiny example: $(tiny_ms) ms (mean of 50 runs)"
echo "corpus: $(find "$main" -type f | wc -l) files, $(du -sb "$main" | cut -f1) bytes; output: $(wc -c <"$out") bytes"
"$ome" -q --timings "$main" 2>&1 >/dev/null | grep '^timing:'
exit $status
