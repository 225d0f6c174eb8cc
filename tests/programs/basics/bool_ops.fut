-- Boolean operators and comparisons.
-- ==
-- input { true false } output { false true true false true }
-- input { true true } output { true true false true false }

entry main (a: bool) (b: bool) = (a && b, a || b, !b, a == b, a != b)
