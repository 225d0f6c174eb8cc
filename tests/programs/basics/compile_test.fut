-- A program without test blocks is a compile test: it passes when it compiles.

def square (x: f64) = x * x

entry main (x: f64) = square x
