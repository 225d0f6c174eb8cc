-- Inputs and outputs read from data files: binary, gzip-compressed, and textual.
-- ==
-- input @ data/vec3.in output { 6.0 }
-- input @ data/vec3b.in.gz output @ data/vec3b_sum.out
-- "gzipped" input @ data/vec3b.in.gz auto output

entry main (xs: []f64) = reduce (+) 0 xs
