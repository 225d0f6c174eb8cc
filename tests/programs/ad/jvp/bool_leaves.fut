-- Boolean leaves: the tangent of !x is the tangent of x; every other operation producing a
-- bool has tangent false.
-- ==
-- entry: nots
-- input { true true } output { true true true }
-- input { false true } output { true true true }
-- input { true false } output { false false false }

entry nots (b: bool) (db: bool) = (jvp (\t -> !t) b db, jvp not b db, jvp (\t -> !(!t)) b db)

-- ==
-- entry: others
-- input { true true } output { false false true }

entry others (b: bool) (db: bool) = (jvp (\t -> t && true) b db, jvp (\t -> t || false) b db, jvp (\t -> t) b db)

-- ==
-- entry: comparisons
-- input { 1.0 } output { 1.0 false false }

entry comparisons (x: f64) = jvp (\t -> (t, t > 0, f64.isnan t)) x 1

-- ==
-- entry: select
-- input { true 2.0 } output { 1.0 }
-- input { false 2.0 } output { -1.0 }

entry select (b: bool) (x: f64) = jvp (\(c, t) -> if c then t else -t) (b, x) (true, 1)
