-- GradBench `det` (cmpad's det_by_minor): the determinant of an ℓ × ℓ matrix by expansion by
-- minors (`primal`) and its gradient by one vjp (`gradient`).
--
-- The recursion of the expansion (along the first row of every minor) is flattened: each
-- path through its first ℓ - 4 levels, a choice of one remaining column per row, is decoded
-- from its index in mixed radix ℓ, ℓ-1, ...; the path contributes the product of the chosen
-- entries, with sign (-1)^(sum of the positions of the chosen columns among the remaining
-- ones), times the 4 × 4 minor left over, itself expanded by minors. All paths are
-- independent, so they run in parallel; the work is that of the recursive algorithm.

-- Determinants of the minors of `a` made of rows r, r+1, ... and the given columns (in
-- increasing order), expanded along their first row.
def det2 [l] (a: [l][l]f64) (r: i64) (c0: i64) (c1: i64) : f64 =
  a[r, c0] * a[r + 1, c1] - a[r, c1] * a[r + 1, c0]

def det3 [l] (a: [l][l]f64) (r: i64) (c0: i64) (c1: i64) (c2: i64) : f64 =
  a[r, c0] * det2 a (r + 1) c1 c2 - a[r, c1] * det2 a (r + 1) c0 c2
  + a[r, c2] * det2 a (r + 1) c0 c1

def det4 [l] (a: [l][l]f64) (r: i64) (c0: i64) (c1: i64) (c2: i64) (c3: i64) : f64 =
  a[r, c0] * det3 a (r + 1) c1 c2 c3 - a[r, c1] * det3 a (r + 1) c0 c2 c3
  + a[r, c2] * det3 a (r + 1) c0 c1 c3 - a[r, c3] * det3 a (r + 1) c0 c1 c2

def unused (mask: i64) (j: i64) : bool = ((mask >> j) & 1) == 0

def det_by_minors [l] (a: [l][l]f64) : f64 =
  let k = i64.min l 4
  let depth = l - k
  let paths = loop acc = 1 for i < depth do acc * (l - i)
  let path_term (path: i64) : f64 =
    let (mask, sign, prod, _) =
      loop (mask, sign, prod, rest) = (0i64, 1f64, 1f64, path) for i < depth do
        let radix = l - i
        let d = rest % radix
        -- the d-th column not chosen yet
        let (col, _) =
          loop (col, seen) = (0i64, 0i64) for j < l do
            if unused mask j then (if seen == d then j else col, seen + 1) else (col, seen)
        in (mask | (1 << col), if d % 2 == 1 then -sign else sign, prod * a[i, col], rest / radix)
    let (cs, _) =
      loop (cs, n) = (replicate 4 0i64, 0i64) for j < l do
        if unused mask j then (cs with [n] = j, n + 1) else (cs, n)
    let leaf =
      if k == 4 then det4 a depth cs[0] cs[1] cs[2] cs[3]
      else if k == 3 then det3 a depth cs[0] cs[1] cs[2]
      else if k == 2 then det2 a depth cs[0] cs[1]
      else if k == 1 then a[depth, cs[0]]
      else 1
    in sign * prod * leaf
  in f64.sum (map path_term (iota paths))

entry primal [n] (A: [n]f64) (ell: i64) : f64 =
  det_by_minors (unflatten (A :> [ell * ell]f64))

-- ==
-- entry: primal
-- input { [2.0] 1i64 }
-- output { 2.0 }
-- input { [1.0, 2.0, 3.0, 4.0] 2i64 }
-- output { -2.0 }
-- input { [0.0, 1.8, -1.4, 1.8, -0.8, -0.3, 1.3, -0.4, 0.2, -1.9, 1.0, 0.2, -0.7, 1.2, -0.8,
--           -0.2, -1.5, -0.4, -1.2, -1.0, 1.0, -0.9, -0.1, 1.9, 1.8] 5i64 }
-- output { 5.6988 }
-- input { [0.9, 0.2, -0.9, -1.4, 1.9, 0.1, -1.5, 0.5, 1.1, 0.5, 1.7, -1.8, 0.1, -0.2, -1.8, 0.6,
--           1.4, 0.4, -1.0, 1.4, 0.0, 0.0, 1.0, -1.4, 1.3, 0.7, 1.1, -1.2, 1.2, -1.2, -1.7, 1.4,
--           1.4, 1.5, -0.1, -0.9] 6i64 }
-- output { -24.935592 }
-- input { [-2.0, 0.6, 0.9, 1.3, -0.9, -1.1, 0.6, 1.2, 1.9, -1.4, -0.1, 1.6, -0.3, 0.4, -1.9, 0.7,
--           1.7, 1.3, 1.5, 0.6, -1.0, 1.1, -1.2, 1.3, -1.7, 1.3, -1.3, -0.5, -0.7, 0.8, -1.3,
--           -0.4, -2.0, -1.0, -0.3, -1.6, 0.5, -0.5, 0.9, 0.6, -0.3, 1.5, 0.5, 1.2, -0.6, 0.2,
--           -1.2, 2.0, -1.0] 7i64 }
-- output { -142.5546318 }

entry gradient [n] (A: [n]f64) (ell: i64) : [n]f64 =
  vjp (\a -> det_by_minors (unflatten (a :> [ell * ell]f64))) A 1

-- ==
-- entry: gradient
-- input { [1.0, 2.0, 3.0, 4.0] 2i64 }
-- output { [4.0, -3.0, -2.0, 1.0] }
-- input { [0.0, 1.8, -1.4, 1.8, -0.8, -0.3, 1.3, -0.4, 0.2, -1.9, 1.0, 0.2, -0.7, 1.2, -0.8,
--           -0.2, -1.5, -0.4, -1.2, -1.0, 1.0, -0.9, -0.1, 1.9, 1.8] 5i64 }
-- output { [-1.1475, 1.0, -4.997, -0.911, 1.8215, -6.6708, -3.4736, 7.7608, 7.1992, -5.1988,
--            8.4816, 2.2432, -2.0456, -3.7304, 0.2336, -2.8188, -2.9816, -1.9352, 0.9952,
--            -1.0828, -5.3478, -3.8816, 3.9868, 6.0892, -2.0098] }
