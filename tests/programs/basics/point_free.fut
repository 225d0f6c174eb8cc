-- A point-free entry point takes its parameters from its type; `def main` is an entry point.
def sq (x: i32) = x * x

entry sq_all = map sq

-- ==
-- entry: sq_all
-- input { [1, 2, 3] } output { [1, 4, 9] }

-- ==
-- input { 4 } output { 16 }

def main (x: i32) = sq x
