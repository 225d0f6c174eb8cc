-- Integer leaves: integer tangents, exact and with wrap-around.
-- ==
-- entry: cube
-- input { 3 } output { 27 27 }
-- input { -2 } output { -8 12 }
-- input { 100000 } output { -1530494976 -64771072 }

entry cube (x: i32) = jvp2 (\t -> t * t * t) x 1

-- ==
-- entry: small_types
-- input { 100i8 10u8 3i64 } output { -56i8 44u8 108i64 }

entry small_types (a: i8) (b: u8) (c: i64) =
  (jvp (\x -> x * x) a 1, jvp (\x -> x * 3) b 100, jvp (\x -> x * x * x * x) c 1)

-- ==
-- entry: linear
-- input { 5 7 } output { 21 }
-- input { 2147483647 2 } output { 6 }

entry linear (x: i32) (dx: i32) = jvp (\t -> 3 * t - 2 + t - t) x dx
