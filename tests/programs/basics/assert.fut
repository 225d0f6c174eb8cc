-- A failed assertion reports its condition.
def half (n: i32) = assert (n % 2 == 0) (n / 2)

-- ==
-- input { 10 } output { 5 }
-- input { 7 } error: Assertion is false: n % 2 == 0

entry main (n: i32) = half n
