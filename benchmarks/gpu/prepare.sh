#!/usr/bin/env bash
# Builds what benchmarks/gpu/run.sh needs on a GPU machine without a Rust toolchain, into
# target/gpu-carry (stripped binaries and the ADBench instances it converts there).
# Usage, from the repository root: benchmarks/gpu/prepare.sh [ADBENCH_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
adbench=${1:-../shared/data/adbench}
carry=target/gpu-carry
cargo build --release -p gradus-cli -p gradus-bench --bins
rm -rf "$carry" && mkdir -p "$carry/bin" "$carry/adbench"
for b in gradus adbench-convert; do
    strip -o "$carry/bin/$b" "target/release/$b"
done
# The instances (the text files; run.sh converts them, and generates k-means).
mkdir -p "$carry/adbench/gmm" "$carry/adbench/ba" "$carry/adbench/lstm" "$carry/adbench/hand"
cp "$adbench/gmm/10k/gmm_d32_K200.txt" "$adbench/gmm/1k/gmm_d10_K25.txt" "$carry/adbench/gmm/"
cp "$adbench/ba/ba10_n1197_m126327_p563734.txt" "$adbench/ba/ba1_n49_m7776_p31843.txt" "$carry/adbench/ba/"
cp "$adbench/lstm/lstm_l4_c4096.txt" "$carry/adbench/lstm/"
cp -r "$adbench/hand/model" "$carry/adbench/hand/"
cp "$adbench/hand/complicated_small/hand8_t26_c6400.txt" "$carry/adbench/hand/hand8_complicated.txt"
du -sh "$carry"
