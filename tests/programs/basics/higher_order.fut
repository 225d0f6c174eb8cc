-- Functions as arguments and results.
def compose 'a 'b 'c (f: b -> c) (g: a -> b) (x: a) = f (g x)
def apply_n (n: i32) (f: i32 -> i32) (x: i32) = loop x for _i < n do f x
def adder (k: i32) = \x -> x + k

-- ==
-- input { 3 } output { 8 23 [4, 5, 6] }

entry main (x: i32) = (compose (+ 1) (* 2) x + 1, apply_n 4 (adder 5) x, map (adder x) [1, 2, 3])
