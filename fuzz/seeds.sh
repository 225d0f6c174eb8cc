#!/usr/bin/env bash
# Writes the seed corpora of the fuzz targets into fuzz/corpus/TARGET (the directory
# `cargo fuzz run TARGET` reads and adds to), from files of the repository; nothing is built.
#
#   parse, typecheck, compile
#                     the programs of tests/programs and examples (*.fut)
#   core_text         the core-IR texts of crates/gradus/tests/core_ir (*.ir); with a gradus
#                     binary at hand ($GRADUS, or target/release/gradus), also the core IR of
#                     the first 60 corpus programs (`gradus dev --stage core`)
#   values            the data files of tests/programs, the inputs and outputs of the test
#                     blocks (one value stream per line), and binary values of every type
#
# Seeds are named after their content's hash, so running it again adds nothing twice.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${1:-$here/corpus}
mkdir -p "$out/parse" "$out/typecheck" "$out/compile" "$out/core_text" "$out/values"

# add TARGET: stores standard input as one seed of TARGET.
add() {
  local tmp
  tmp=$(mktemp)
  cat >"$tmp"
  if [ -s "$tmp" ]; then
    mv "$tmp" "$out/$1/seed-$(sha1sum "$tmp" | cut -c1-16)"
  else
    rm -f "$tmp"
  fi
}

while IFS= read -r -d '' f; do
  add parse <"$f"
  add typecheck <"$f"
  add compile <"$f"
done < <(find "$root/tests/programs" "$root/examples" -name '*.fut' -size -64k -print0 | sort -z)

for f in "$root"/crates/gradus/tests/core_ir/*.ir; do add core_text <"$f"; done
gradus=${GRADUS:-$root/target/release/gradus}
if [ -x "$gradus" ]; then
  find "$root/tests/programs" -name '*.fut' -print0 | sort -z | head -z -n 60 |
    while IFS= read -r -d '' f; do
      "$gradus" dev --stage core "$f" 2>/dev/null | add core_text || true
    done || true
fi

for f in $(find "$root/tests/programs" -name '*.in' -o -name '*.out' -o -name '*.gz' | sort); do
  add values <"$f"
done
# The values of `input { ... }` and `output { ... }` lines of the test blocks.
find "$root/tests/programs" -name '*.fut' -print0 | sort -z | xargs -0 grep -h -E '^-- (input|output) \{.*\}\s*$' |
  sed -E 's/^-- (input|output) \{(.*)\}\s*$/\2/' | sort -u | head -n 400 |
  while IFS= read -r line; do printf '%s\n' "$line" | add values; done || true
# Binary values (docs/language.md §Binary format): a scalar and a 2x2 array of each type, and two
# values of different formats in one stream.
for t in '  i8:1' ' i16:2' ' i32:4' ' i64:8' '  u8:1' ' u16:2' ' u32:4' ' u64:8' ' f32:4' ' f64:8' 'bool:1'; do
  tag=${t%:*}
  w=${t#*:}
  zeros=$(printf '\\x01%.0s' $(seq 1 "$w"))
  { printf 'b\x02\x00%s' "$tag"; printf "$zeros"; } | add values
  {
    printf 'b\x02\x02%s' "$tag"
    printf '\x02\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00'
    for _ in 1 2 3 4; do printf "$zeros"; done
  } | add values
done
{ printf '[1i32, 2i32] -- a comment\nb\x02\x01 f64\x01\x00\x00\x00\x00\x00\x00\x00'; printf '\x00\x00\x00\x00\x00\x00\xf0\x3f'; printf ' empty([0][2]bool)\n'; } | add values

for t in parse typecheck compile core_text values; do
  echo "$t: $(find "$out/$t" -type f | wc -l) inputs in $out/$t"
done
