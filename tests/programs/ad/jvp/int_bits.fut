-- Integer bit operations have derivative 0.
-- ==
-- entry: bits
-- input { 7 } output { 0 }
-- input { -123 } output { 0 }

entry bits (x: i32) =
  jvp (\t -> (t & 12) + (t | 3) + (t ^ 5) + (t << 2) + (t >> 1) + i32.not t) x 1

-- ==
-- entry: counts
-- input { 12 } output { 0 0 0 0 }

entry counts (x: i32) =
  jvp (\t -> (i32.popc t, i32.clz t, i32.ctz t, i32.get_bit 2 t)) x 1

-- ==
-- entry: mixed
-- input { 12 } output { 3 }
-- input { -5 } output { 3 }

-- only the arithmetic part contributes: d/dt (3t + (t & 0) + (t >> 31)) = 3
entry mixed (x: i32) = jvp (\t -> 3 * t + (t & 0) + (t >> 31)) x 1

-- ==
-- entry: unsigned
-- input { 4000000000u32 } output { 0u32 2u32 }

entry unsigned (x: u32) = (jvp (\t -> t u32.>>> 3) x 1, jvp (\t -> t + t) x 1)
