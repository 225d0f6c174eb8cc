-- Conversions that need the numeric modules.
def r32 (x: i32) : f32 = f32.i32 x
def t32 (x: f32) : i32 = i32.f32 x
def r64 (x: i32) : f64 = f64.i32 x
def t64 (x: f64) : i32 = i32.f64 x

-- `flatmap f as` applies `f` to each element, giving a variable-length part and a fixed
-- part: the segment lengths, flags marking each segment's first element, the segment
-- offsets, the variable-length parts concatenated, and the fixed parts (docs/language.md §Array
-- combinators). Each element of the data is computed on its own, by `f` of its element of `as`.
def flatmap 'a 'b 'c [n] (f: a -> ([]b, c)) (as: [n]a) : ([n]i64, []bool, [n]i64, []b, [n]c) =
  let lens = map (\x -> length (f x).0) as
  let offsets = exscan (+) 0 lens
  let m = reduce (+) 0 lens
  let starts = map2 (\l o -> if l > 0 then o else -1) lens offsets
  let seg = scan i64.max 0 (scatter (replicate m 0) starts (iota n))
  let flags = scatter (replicate m false) starts (replicate n true)
  let data = map2 (\s j -> (f as[s]).0[j - offsets[s]]) seg (iota m)
  in (lens, flags, offsets, data, map (\x -> (f x).1) as)
def flatmap' 'a 'b [n] (f: a -> []b) (as: [n]a) : ([n]i64, []bool, [n]i64, []b) =
  let (lens, flags, offsets, data, _) = flatmap (\x -> (f x, ())) as
  in (lens, flags, offsets, data)
