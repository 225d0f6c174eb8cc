-- The gradus prelude: functions in scope in every program (docs/language.md §The prelude).
--
-- A declaration whose body is the typed hole `???` is an intrinsic: the internaliser
-- implements it directly. Everything else is ordinary code, differentiated like user code.
-- The numeric modules (f64, i32, ...) are generated from a template in `mod.rs` and follow
-- this file.

-- Second-order array combinators.
def map 'a 'b [n] (f: a -> b) (as: [n]a) : *[n]b = ???
def reduce 'a [n] (op: a -> a -> a) (ne: a) (as: [n]a) : a = ???
def reduce_comm 'a [n] (op: a -> a -> a) (ne: a) (as: [n]a) : a = ???
def scan 'a [n] (op: a -> a -> a) (ne: a) (as: [n]a) : *[n]a = ???
def reduce_by_index 'a [k] [n] (dest: *[k]a) (f: a -> a -> a) (ne: a) (is: [n]i64) (as: [n]a) : *[k]a = ???
def scatter 't [k] [n] (dest: *[k]t) (is: [n]i64) (vs: [n]t) : *[k]t = ???

-- Arrays.
def iota (n: i64) : *[n]i64 = ???
def replicate 't (n: i64) (x: t) : *[n]t = ???
def copy 't (a: t) : *t = ???
def concat 't [n] [m] (xs: [n]t) (ys: [m]t) : *[n + m]t = ???
def reverse 't [n] (xs: [n]t) : [n]t = ???
def rotate 't [n] (r: i64) (xs: [n]t) : [n]t = ???
def transpose 't [n] [m] (xss: [n][m]t) : [m][n]t = ???
def flatten 't [n] [m] (xss: [n][m]t) : [n * m]t = ???
def unflatten 't [n] [m] (xs: [n * m]t) : [n][m]t = ???
def zip 'a 'b [n] (as: [n]a) (bs: [n]b) : *[n](a, b) = ???
def unzip 'a 'b [n] (xs: [n](a, b)) : ([n]a, [n]b) = ???
def length 't [n] (xs: [n]t) : i64 = ???
def opaque 't (x: t) : t = ???
def trace 't (x: t) : t = ???
-- A debugger breakpoint in Futhark; the identity here (docs/language.md §Other prelude functions).
def break 't (x: t) : t = x

-- Automatic differentiation (docs/language.md §Differentiation).
def jvp 'a 'b (f: a -> b) (x: a) (dx: a) : b = ???
def jvp2 'a 'b (f: a -> b) (x: a) (dx: a) : (b, b) = ???
def vjp 'a 'b (f: a -> b) (x: a) (ybar: b) : a = ???
def vjp2 'a 'b (f: a -> b) (x: a) (ybar: b) : (b, a) = ???
def jmp 'a 'b [k] (f: a -> b) (x: a) (dxs: [k]a) : [k]b = ???
def jmp2 'a 'b [k] (f: a -> b) (x: a) (dxs: [k]a) : (b, [k]b) = ???
def mjp 'a 'b [k] (f: a -> b) (x: a) (ybars: [k]b) : [k]a = ???
def mjp2 'a 'b [k] (f: a -> b) (x: a) (ybars: [k]b) : (b, [k]a) = ???
-- Custom derivatives (10.7): `f x`, differentiated by `df (f x) ybar` in reverse mode or by
-- `df x xdot` in forward mode.
def with_vjp 'a 'b (f: a -> b) (df: b -> b -> a) (x: a) : b = ???
def with_jvp 'a 'b (f: a -> b) (df: a -> a -> b) (x: a) : b = ???

-- Functions.
def (|>) '^a '^b (x: a) (f: a -> b) : b = f x
def (<|) '^a '^b (f: a -> b) (x: a) : b = f x
def (>->) '^a '^b '^c (f: a -> b) (g: b -> c) (x: a) : c = g (f x)
def (<-<) '^a '^b '^c (g: b -> c) (f: a -> b) (x: a) : c = g (f x)
def id '^a (x: a) : a = x
def const '^a '^b (x: a) (_: b) : a = x
def flip '^a '^b '^c (f: a -> b -> c) (b: b) (a: a) : c = f a b
def curry '^a '^b '^c (f: (a, b) -> c) (a: a) (b: b) : c = f (a, b)
def uncurry '^a '^b '^c (f: a -> b -> c) ((a, b): (a, b)) : c = f a b
def not (x: bool) : bool = !x

def iterate 'a (n: i32) (f: a -> a) (x: a) : a =
  loop x for _i < n do f x
def iterate_while 'a (p: a -> bool) (f: a -> a) (x: a) : a =
  loop x = x while p x do f x
def iterate_until 'a (p: a -> bool) (f: a -> a) (x: a) : a =
  loop x = x while !(p x) do f x

-- Derived combinators.
def map1 'a 'b [n] (f: a -> b) (as: [n]a) : *[n]b = map f as
def map2 'a 'b 'c [n] (f: a -> b -> c) (as: [n]a) (bs: [n]b) : *[n]c =
  map (\(a, b) -> f a b) (zip as bs)
def zip3 'a 'b 'c [n] (as: [n]a) (bs: [n]b) (cs: [n]c) : *[n](a, b, c) =
  map2 (\a (b, c) -> (a, b, c)) as (zip bs cs)
def zip4 'a 'b 'c 'd [n] (as: [n]a) (bs: [n]b) (cs: [n]c) (ds: [n]d) : *[n](a, b, c, d) =
  map2 (\a (b, c, d) -> (a, b, c, d)) as (zip3 bs cs ds)
def zip5 'a 'b 'c 'd 'e [n] (as: [n]a) (bs: [n]b) (cs: [n]c) (ds: [n]d) (es: [n]e) : *[n](a, b, c, d, e) =
  map2 (\a (b, c, d, e) -> (a, b, c, d, e)) as (zip4 bs cs ds es)
def zip2 'a 'b [n] (as: [n]a) (bs: [n]b) : *[n](a, b) = zip as bs
def unzip2 'a 'b [n] (xs: [n](a, b)) : ([n]a, [n]b) = unzip xs
def unzip3 'a 'b 'c [n] (xs: [n](a, b, c)) : ([n]a, [n]b, [n]c) =
  let (as, bcs) = unzip (map (\(a, b, c) -> (a, (b, c))) xs)
  let (bs, cs) = unzip bcs
  in (as, bs, cs)
def unzip4 'a 'b 'c 'd [n] (xs: [n](a, b, c, d)) : ([n]a, [n]b, [n]c, [n]d) =
  let (as, bcds) = unzip (map (\(a, b, c, d) -> (a, (b, c, d))) xs)
  let (bs, cs, ds) = unzip3 bcds
  in (as, bs, cs, ds)
def unzip5 'a 'b 'c 'd 'e [n] (xs: [n](a, b, c, d, e)) : ([n]a, [n]b, [n]c, [n]d, [n]e) =
  let (as, bcdes) = unzip (map (\(a, b, c, d, e) -> (a, (b, c, d, e))) xs)
  let (bs, cs, ds, es) = unzip4 bcdes
  in (as, bs, cs, ds, es)
def map3 'a 'b 'c 'd [n] (f: a -> b -> c -> d) (as: [n]a) (bs: [n]b) (cs: [n]c) : *[n]d =
  map (\(a, b, c) -> f a b c) (zip3 as bs cs)
def map4 'a 'b 'c 'd 'e [n] (f: a -> b -> c -> d -> e) (as: [n]a) (bs: [n]b) (cs: [n]c) (ds: [n]d) : *[n]e =
  map (\(a, b, c, d) -> f a b c d) (zip4 as bs cs ds)
def map5 'a 'b 'c 'd 'e 'f [n] (f: a -> b -> c -> d -> e -> f) (as: [n]a) (bs: [n]b) (cs: [n]c) (ds: [n]d) (es: [n]e) : *[n]f =
  map (\(a, b, c, d, e) -> f a b c d e) (zip5 as bs cs ds es)

def hist 'a [n] (op: a -> a -> a) (ne: a) (k: i64) (is: [n]i64) (as: [n]a) : *[k]a =
  reduce_by_index (replicate k ne) op ne is as
def spread 't [n] (k: i64) (x: t) (is: [n]i64) (vs: [n]t) : *[k]t =
  scatter (replicate k x) is vs
def exscan 'a [n] (op: a -> a -> a) (ne: a) (as: [n]a) : *[n]a =
  let s = scan op ne as
  in map (\i -> if i == 0 then ne else s[i - 1]) (iota n)
def tabulate 'a (n: i64) (f: i64 -> a) : *[n]a = map f (iota n)
def tabulate_2d 'a (n: i64) (m: i64) (f: i64 -> i64 -> a) : *[n][m]a =
  map (\i -> map (f i) (iota m)) (iota n)
def tabulate_3d 'a (n: i64) (m: i64) (o: i64) (f: i64 -> i64 -> i64 -> a) : *[n][m][o]a =
  map (\i -> map (\j -> map (f i j) (iota o)) (iota m)) (iota n)
def indices 't [n] (_: [n]t) : *[n]i64 = iota n
def rep 't [n] (x: t) : *[n]t = replicate n x
def manifest 't (a: t) : *t = copy a
def sized 't [m] (k: i64) (xs: [m]t) : [k]t = xs :> [k]t
def null 't [n] (_: [n]t) : bool = n == 0
def head 't [n] (xs: [n]t) : t = xs[0]
def last 't [n] (xs: [n]t) : t = xs[n - 1]
def tail 't [n] (xs: [n]t) : [n - 1]t = xs[1:]
def init 't [n] (xs: [n]t) : [n - 1]t = xs[:n - 1]
def take 't [n] (i: i64) (xs: [n]t) : [i]t = xs[:i]
def drop 't [n] (i: i64) (xs: [n]t) : [n - i]t = xs[i:]
def split 't [n] [m] (xs: [n + m]t) : ([n]t, [m]t) = (xs[:n] :> [n]t, xs[n:] :> [m]t)
def (++) 't [n] [m] (xs: [n]t) (ys: [m]t) : *[n + m]t = concat xs ys
def all 'a [n] (p: a -> bool) (as: [n]a) : bool = reduce (&&) true (map p as)
def any 'a [n] (p: a -> bool) (as: [n]a) : bool = reduce (||) false (map p as)
def and [n] (bs: [n]bool) : bool = reduce (&&) true bs
def or [n] (bs: [n]bool) : bool = reduce (||) false bs
def foldl 'a 'b [n] (f: a -> b -> a) (acc: a) (bs: [n]b) : a =
  loop acc for b in bs do f acc b
def foldr 'a 'b [n] (f: b -> a -> a) (acc: a) (bs: [n]b) : a =
  loop acc for b in reverse bs do f b acc
def flatten_3d 't [n] [m] [l] (xs: [n][m][l]t) : [n * m * l]t = flatten (flatten xs)
def flatten_4d 't [n] [m] [l] [k] (xs: [n][m][l][k]t) : [n * m * l * k]t =
  flatten (flatten_3d xs)
def unflatten_3d 't [n] [m] [l] (xs: [n * m * l]t) : [n][m][l]t =
  let rows = unflatten (sized (n * (m * l)) xs) : [n][m * l]t
  in map (\r -> unflatten r : [m][l]t) rows
def unflatten_4d 't [n] [m] [l] [k] (xs: [n * m * l * k]t) : [n][m][l][k]t =
  let rows = unflatten (sized (n * (m * l * k)) xs) : [n][m * l * k]t
  in map (\r -> unflatten_3d r : [m][l][k]t) rows

def filter 'a [n] (p: a -> bool) (as: [n]a) : *[]a =
  let flags = map (\x -> if p x then 1i64 else 0i64) as
  let offsets = scan (+) 0 flags
  let m = if n == 0 then 0 else offsets[n - 1]
  let is = map2 (\f o -> if f == 1 then o - 1 else -1) flags offsets
  in scatter (copy as[:m]) is as

def partition 'a [n] (p: a -> bool) (as: [n]a) : ([]a, []a) =
  let flags = map (\x -> if p x then 1i64 else 0i64) as
  let offsets = scan (+) 0 flags
  let m = if n == 0 then 0 else offsets[n - 1]
  let is = map3 (\f o i -> if f == 1 then o - 1 else m + i - o) flags offsets (iota n)
  let all = scatter (copy as) is as
  in (all[:m], all[m:])


def partition2 'a [n] (p1: a -> bool) (p2: a -> bool) (as: [n]a) : ([]a, []a, []a) =
  let (xs, rest) = partition p1 as
  let (ys, zs) = partition p2 rest
  in (xs, ys, zs)

-- Multi-dimensional scatter and histograms: the index tuples become positions in the
-- flattened destination; a tuple with any component out of range becomes -1 (ignored).
def scatter_2d 't [k] [m] [n] (dest: *[k][m]t) (is: [n](i64, i64)) (vs: [n]t) : *[k][m]t =
  let flat = map (\(i, j) -> if 0 <= i && i < k && 0 <= j && j < m then i * m + j else -1) is
  in unflatten (scatter (flatten dest) flat vs)
def scatter_3d 't [k] [m] [l] [n] (dest: *[k][m][l]t) (is: [n](i64, i64, i64)) (vs: [n]t)
    : *[k][m][l]t =
  let flat =
    map (\(i, j, h) ->
           if 0 <= i && i < k && 0 <= j && j < m && 0 <= h && h < l
           then (i * m + j) * l + h
           else -1)
        is
  in unflatten_3d (scatter (flatten_3d dest) flat vs)
def reduce_by_index_2d 'a [k] [m] [n] (dest: *[k][m]a) (f: a -> a -> a) (ne: a)
    (is: [n](i64, i64)) (as: [n]a) : *[k][m]a =
  let flat = map (\(i, j) -> if 0 <= i && i < k && 0 <= j && j < m then i * m + j else -1) is
  in unflatten (reduce_by_index (flatten dest) f ne flat as)
def reduce_by_index_3d 'a [k] [m] [l] [n] (dest: *[k][m][l]a) (f: a -> a -> a) (ne: a)
    (is: [n](i64, i64, i64)) (as: [n]a) : *[k][m][l]a =
  let flat =
    map (\(i, j, h) ->
           if 0 <= i && i < k && 0 <= j && j < m && 0 <= h && h < l
           then (i * m + j) * l + h
           else -1)
        is
  in unflatten_3d (reduce_by_index (flatten_3d dest) f ne flat as)
def hist_2d 'a [n] (op: a -> a -> a) (ne: a) (k: i64) (m: i64) (is: [n](i64, i64)) (as: [n]a)
    : *[k][m]a =
  reduce_by_index_2d (replicate k (replicate m ne)) op ne is as
def hist_3d 'a [n] (op: a -> a -> a) (ne: a) (k: i64) (m: i64) (l: i64)
    (is: [n](i64, i64, i64)) (as: [n]a) : *[k][m][l]a =
  reduce_by_index_3d (replicate k (replicate m (replicate l ne))) op ne is as

-- Streams, as one chunk: the whole array.
def map_stream 'a 'b [n] (f: (k: i64) -> [k]a -> [k]b) (as: [n]a) : *[n]b = copy (f n as)
def map_stream_per 'a 'b [n] (f: (k: i64) -> [k]a -> [k]b) (as: [n]a) : *[n]b = copy (f n as)
def reduce_stream 'a 'b [n] (_op: b -> b -> b) (f: (k: i64) -> [k]a -> b) (as: [n]a) : b =
  f n as
def reduce_stream_per 'a 'b [n] (_op: b -> b -> b) (f: (k: i64) -> [k]a -> b) (as: [n]a) : b =
  f n as

