#!/usr/bin/env bash
# The gpu backend on a GPU machine: the corpus on the GPU, then ADBench timings on the GPU
# against `multicore` on all cores, JAX and PyTorch on the same GPU (benchmarks/gpu/peers.py),
# and the bandwidth of a map-heavy entry point. Needs target/gpu-carry from prepare.sh (no
# Rust toolchain here); writes everything under OUT (default target/gpu-results).
# Usage, from the repository root: benchmarks/gpu/run.sh [OUT]
# (GPU_SKIP_CORPUS=1 leaves out the corpus; GPU_BENCH_RUNS=N sets the timed runs, default 10.)
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
out=${1:-${OUT:-target/gpu-results}}
mkdir -p "$out"
export PATH=$root/target/gpu-carry/bin:$PATH
export GRADUS_CACHE_DIR=${GRADUS_CACHE_DIR:-/tmp/gradus-cache}
runs=${GPU_BENCH_RUNS:-10}
log() { echo "[$(date +%T)] $*" | tee -a "$out/progress.txt"; }

# NVRTC: the CUDA toolkit's, else PyTorch's or JAX's copy from PyPI.
if [ -z "${GRADUS_NVRTC:-}" ]; then
    GRADUS_NVRTC=$(find /usr/local/cuda*/lib64 /usr/lib/x86_64-linux-gnu /opt /usr/local/lib \
        -name 'libnvrtc.so*' ! -name '*builtins*' ! -name '*alt*' 2>/dev/null | sort | tail -n 1)
    export GRADUS_NVRTC
fi
{
    date; nproc; uname -a; cc --version | head -1
    nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv
    echo "GRADUS_NVRTC=$GRADUS_NVRTC"
    gradus --version
} > "$out/machine.txt" 2>&1

# A first call names the runtime and device the backend picked.
printf 'entry main (n: i64) = reduce (+) 0 (map (\\i -> f64.i64 i) (iota n))\n' > /tmp/probe.fut
echo 1000i64 | gradus run --backend gpu /tmp/probe.fut -e main > "$out/probe.txt" 2>&1
log "probe: $(cat "$out/probe.txt")"

if [ -z "${GPU_SKIP_CORPUS:-}" ]; then
    log "corpus on the gpu backend (CUDA)"
    GRADUS_GPU_RUNTIME=cuda timeout 300 gradus test --backend gpu tests/programs benchmarks \
        > "$out/corpus.txt" 2>&1
    log "corpus: $(tail -n 1 "$out/corpus.txt")"
fi

log "inputs"
a=target/gpu-carry/adbench; d=/tmp/adbench; mkdir -p $d
adbench-convert gmm $a/gmm/gmm_d32_K200.txt > $d/gmm_d32_K200.in
adbench-convert gmm $a/gmm/gmm_d10_K25.txt > $d/gmm_d10_K25.in
adbench-convert ba $a/ba/ba10_n1197_m126327_p563734.txt > $d/ba10.in
adbench-convert ba $a/ba/ba1_n49_m7776_p31843.txt > $d/ba1.in
adbench-convert lstm $a/lstm/lstm_l4_c4096.txt > $d/lstm_l4_c4096.in
cp -r $a/hand/model $d/ && adbench-convert hand-complicated $a/hand/hand8_complicated.txt > $d/hand8_complicated.in
adbench-convert kmeans 5 494019 35 > $d/kmeans_5_494019_35.in

# bench PROGRAM "ENTRIES" INPUT...: the program with a test block of the inputs (files, or
# values written `{ ... }`), timed on the gpu backend and on multicore (all cores).
bench() {
    local prog=$1 entries=$2; shift 2
    local name; name=$(basename "$prog" .fut)
    mkdir -p /tmp/bench && cp -r benchmarks/data /tmp/bench/ && cp "$prog" /tmp/bench/
    { printf -- '\n-- ==\n-- entry: %s\n' "$entries"
      for i in "$@"; do
          case $i in
              '{'*) printf -- '-- input %s\n' "$i" ;;
              *) printf -- '-- compiled input @ %s\n' "$i" ;;
          esac
      done; } >> "/tmp/bench/$name.fut"
    local es=(); for e in $entries; do es+=(-e "$e"); done
    # gpu-inner: loops of fewer than 4096 iterations run on the host, launching inner loops;
    # gpu-nosub: no sub-histograms in local memory (atomics into global memory only).
    for config in gpu gpu-inner gpu-nosub multicore; do
        local backend=${config%-*} min_outer=0 sub_hist=1024
        [ "$config" = gpu-inner ] && min_outer=4096
        if [ "$config" = gpu-nosub ]; then
            # Only where reverse mode's accumulators are small (k-means' centres, GMM's
            # parameters): elsewhere it is the same kernel.
            case $name in gmm|kmeans) sub_hist=0 ;; *) continue ;; esac
        fi
        log "bench $name on $config"
        GRADUS_GPU_MIN_OUTER=$min_outer GRADUS_GPU_SUB_HIST=$sub_hist \
            timeout 300 gradus bench "/tmp/bench/$name.fut" \
            --backend "$backend" --runs "$runs" "${es[@]}" \
            --json "$out/bench-$name-$config.json" > "$out/bench-$name-$config.txt" 2>&1
        tail -n 4 "$out/bench-$name-$config.txt" | tee -a "$out/progress.txt"
    done
}
bench benchmarks/gmm.fut "objective gradient" $d/gmm_d10_K25.in $d/gmm_d32_K200.in
bench benchmarks/kmeans.fut "objective gradient" $d/kmeans_5_494019_35.in
bench benchmarks/ba.fut "objective jacobian" $d/ba1.in $d/ba10.in
bench benchmarks/lstm.fut "objective gradient" $d/lstm_l4_c4096.in
bench benchmarks/hand.fut "objective_complicated jacobian_complicated" $d/hand8_complicated.in
# 2^26 f64 (512 MiB): 20 and 120 rounds.
bench benchmarks/gpu/bandwidth.fut "stream sums" '{ 67108864i64 20i64 }' '{ 67108864i64 120i64 }'

log "peers (JAX, PyTorch)"
timeout 300 python3 benchmarks/gpu/peers.py > "$out/peers.txt" 2>&1
tail -n 30 "$out/peers.txt" | tee -a "$out/progress.txt"
log done
