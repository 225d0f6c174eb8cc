#!/usr/bin/env bash
# Builds the fuzz targets and runs each for SECONDS seconds, one after another or, with -p,
# all at once; prints one line per target: the inputs run and the finding (the input that
# crashed, hung or ran out of memory, saved under fuzz/artifacts/TARGET/) or "none".
#
#   fuzz/run-all.sh [-p] [--no-build] SECONDS [TARGET...]
#
# Targets: parse typecheck compile core_text values (default: all). Needs a nightly toolchain and
# cargo-fuzz (`cargo install cargo-fuzz`). The corpora are fuzz/corpus/TARGET, seeded by
# fuzz/seeds.sh and kept between runs; logs go to fuzz/logs/TARGET.log. Each input may take at
# most $FUZZ_TIMEOUT seconds (default 10) and the process $FUZZ_RSS_MB MB (default 2048).
# The targets are built without a sanitizer unless $FUZZ_SANITIZER says which (`address`):
# the readers are safe Rust, and AddressSanitizer slowed the type checker target fifty-fold
# (it clears the shadow of the checker's 512 MB stack on every input).
# The exit status is 1 when a target had a finding.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
parallel=0
build=1
while [ $# -gt 0 ]; do
  case "$1" in
    -p|--parallel) parallel=1; shift ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
  esac
done
if [ $# -lt 1 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 [-p] [--no-build] SECONDS [TARGET...]" >&2
  exit 2
fi
seconds=$1
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(parse typecheck compile core_text values)
timeout=${FUZZ_TIMEOUT:-10}
rss=${FUZZ_RSS_MB:-2048}

cd "$root"
triple=$(rustc +nightly -vV | sed -n 's/^host: //p')
bindir="$root/fuzz/target/$triple/release"
if [ "$build" = 1 ]; then
  nice -n 10 cargo +nightly fuzz build -O -s "${FUZZ_SANITIZER:-none}"
fi
for t in "${targets[@]}"; do
  if [ ! -x "$bindir/$t" ]; then
    echo "no fuzz binary $bindir/$t (build first, or check the target's name)" >&2
    exit 2
  fi
done
echo "fuzz binaries (runnable on their own, e.g. $bindir/parse CORPUS_DIR -max_total_time=600):"
for t in "${targets[@]}"; do echo "  $bindir/$t"; done
"$here/seeds.sh" >/dev/null
mkdir -p "$here/logs"

# run TARGET: fuzzes one target; its exit status is libFuzzer's.
run() {
  local t=$1
  mkdir -p "$here/artifacts/$t" "$here/corpus/$t"
  local dict=()
  case "$t" in parse|typecheck|compile) dict=(-dict="$here/futhark.dict") ;; esac
  nice -n 15 "$bindir/$t" "$here/corpus/$t" "${dict[@]}" \
    -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb="$rss" \
    -artifact_prefix="$here/artifacts/$t/" -print_final_stats=1 >"$here/logs/$t.log" 2>&1
}

# summary TARGET STATUS: the one-line summary of a finished run.
summary() {
  local t=$1 status=$2 log="$here/logs/$1.log" runs what artifact
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  [ -n "$runs" ] || runs=$(grep -o '^#[0-9]*' "$log" | tail -n 1 | tr -d '#')
  if [ "$status" = 0 ]; then
    echo "$t: ${runs:-0} runs, finding: none"
    return
  fi
  artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
  what=$(grep -m1 -o -E 'ERROR: libFuzzer: [a-z-]+( [a-z-]+)*|panicked at [^ ]*|ERROR: AddressSanitizer: [a-z-]+' "$log" || true)
  echo "$t: ${runs:-0} runs, finding: ${what:-exit status $status} -> ${artifact:-see $log}"
}

failed=0
if [ "$parallel" = 1 ]; then
  pids=()
  for t in "${targets[@]}"; do
    run "$t" &
    pids+=($!)
  done
  for i in "${!targets[@]}"; do
    status=0
    wait "${pids[$i]}" || status=$?
    summary "${targets[$i]}" "$status"
    [ "$status" = 0 ] || failed=1
  done
else
  for t in "${targets[@]}"; do
    status=0
    run "$t" || status=$?
    summary "$t" "$status"
    [ "$status" = 0 ] || failed=1
  done
fi
exit "$failed"
