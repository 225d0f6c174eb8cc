-- An array whose element count does not fit in 64 bits: `replicate k (replicate k 1)` with
-- k = 2^32 + 1 has 2^64 + 2^33 + 1 elements. Native code computed the count with wrapping
-- arithmetic, allocated 2^33 + 1 bytes, and the loop filling the rows wrote past them
-- (a segmentation fault); the count now saturates and the allocation fails with an error,
-- as in the interpreter.
-- ==
-- input { 4294967297i64 }
-- error: cannot allocate
-- input { 3i64 }
-- output { 1u8 }

entry main (k: i64) : u8 =
  let a = replicate k (replicate k 1u8)
  in a[k - 1, k - 1]

-- A size close to 2^63 on a branch: GCC proves that filling such an array overflows its
-- index arithmetic (`-Waggressive-loop-optimizations`); the allocation fails before it.
-- ==
-- entry: huge_branch
-- input { [1i8, 2i8] }
-- output { false }

entry huge_branch [k] (p: [k]i8) : bool =
  9223372036854775806i64 < k && (let a = replicate k (replicate k (p[0] > 0)) in a[0, 0])
