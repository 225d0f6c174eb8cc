-- `loop ... for x in xs`: Horner's rule with the highest coefficient first.
-- ==
-- input { [1.0, 2.0, 3.0] 2.0 } output { 11.0 }
-- input { empty([0]f64) 2.0 } output { 0.0 }

entry main (cs: []f64) (x: f64) = loop acc = 0 for c in cs do acc * x + c
