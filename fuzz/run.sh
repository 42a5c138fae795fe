#!/usr/bin/env bash
# Runs the fuzz targets one after the other, SECONDS each (FUZZING.md):
#
#   fuzz/run.sh SECONDS [TARGET...]      (default: every target)
#
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). Corpora grow in
# fuzz/corpus/<target> (seeded from testdata/ and examples/), crashes land in
# fuzz/artifacts/<target>, logs in fuzz/logs; none of them is committed. A crash's input is
# kept in fuzz/regressions/<target>/ (replayed here first, and by the `fuzzing` tests in
# `cargo test --features fuzzing` where the target takes plain text) and becomes a test in the
# main suite.
set -uo pipefail
cd "$(dirname "$0")"
seconds=${1:?usage: fuzz/run.sh SECONDS [TARGET...]}
shift
all=(yaml pipeline placeholders versions sizes args diagnostics reports)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
mkdir -p corpus logs

seed() { # target: copies the repository's inputs into its corpus (once per file)
  case $1 in
    yaml)
      find ../testdata ../examples -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) |
        while read -r f; do cp -n "$f" "corpus/yaml/seed-$(echo "$f" | tr '/.' '__')"; done ;;
    pipeline)
      # One seed per directory: its files joined with NUL bytes, as the target splits them.
      find ../testdata ../examples -mindepth 1 -type d | while read -r d; do
        out="corpus/pipeline/seed-$(echo "$d" | tr '/.' '__')"
        [ -e "$out" ] && continue
        first=1
        for f in "$d"/*.yaml; do
          [ -f "$f" ] || continue
          [ $first = 1 ] || printf '\0'
          cat "$f"; first=0
        done >"$out"
        [ -s "$out" ] || rm -f "$out"
      done ;;
  esac
}

# Build once (-a: overflow checks and debug assertions on, as in the tests), then run the
# binaries, so an edit during a long run changes nothing.
cargo +nightly fuzz build -a >logs/build.log 2>&1 || {
  cat logs/build.log >&2
  exit 2
}
bin=target/$(rustc +nightly -vV | sed -n 's/^host: //p')/release

status=0
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "artifacts/$t"
  seed "$t"
  dict=()
  [ -f "dicts/$t.dict" ] && dict=(-dict="dicts/$t.dict")
  # The inputs earlier runs crashed on, first: each must pass now.
  if compgen -G "regressions/$t/*" >/dev/null; then
    "$bin/$t" regressions/"$t"/* >"logs/$t-regressions.log" 2>&1 || {
      echo "$t: a regression input fails again (logs/$t-regressions.log)" >&2
      status=1
    }
  fi
  start=$(date +%s)
  touch "logs/.start-$t"
  # Fork mode: a crash, a timeout or running out of memory is saved and the run goes on, so
  # every target gets its whole time and every distinct crash is kept.
  "$bin/$t" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -artifact_prefix="artifacts/$t/" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 "${dict[@]}" "corpus/$t" >"logs/$t.log" 2>&1
  rc=$?
  took=$(( $(date +%s) - start ))
  # Fork mode's status lines: `#RUNS: cov: N ft: N corp: N exec/s: N oom/timeout/crash: a/b/c …`.
  runs=$(grep -o '^#[0-9]*: cov' "logs/$t.log" | tail -1 | grep -o '[0-9]*')
  cov=$(grep -o 'cov: [0-9]*' "logs/$t.log" | tail -1 | grep -o '[0-9]*')
  crashes=$(find "artifacts/$t" -type f -newer "logs/.start-$t" | wc -l)
  line="$(date -u +%Y-%m-%dT%H:%MZ) $t: ${took}s, ${runs:-?} runs, coverage ${cov:-?}, exit $rc, ${crashes} new artifacts"
  echo "$line" | tee -a logs/summary.txt
  [ $rc -eq 0 ] || status=1
done
exit $status
