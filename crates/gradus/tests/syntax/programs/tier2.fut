-- Records, sum types, match, assert, existentials, user operators, attributes.
type real = f64
type grid [h] [w] 't = [h][w]t
type~ ragged = []i32
type^ fn 'a = a -> a
type point = {x: f64, y: f64,}
type shape = #circle f64 | #rect f64 f64 | #empty
type vec [n] = [n]f64
def use_grid (g: grid [3] [4] f64) (v: vec [2]) (pr: [2](vec [2])) = g
def mk (x: f64) (y: f64) : point = {x = x, y, }
def getx (p: point) = p.x + (p).y
def upd (p: point) = p with x = 1.0
def upd2 r v =
  let r.a.b = v
  in r with a.c = v
def recpat {x, y = yy} = x + yy
def area (s: shape) : f64 =
  match s
  case #circle r -> f64.pi * r * r
  case #rect w h -> w * h
  case #empty -> 0
def lits (x: i32) = match x case 0 -> 1 case -1 -> 2 case _ -> 3
def checked (x: i64) = assert (x > 0) x * 2
def exist (n: i64) : ?[k].([k]i64, [n - k]i64) = partition (> 0) (iota n)
def sized [n] (xs: [n]i32) = let [m] (ys: [m]i32) = filter (> 0) xs in ys
def (<+>) (a: f64) (b: f64) = a + b
def (a: f64) <-> (b: f64) : f64 = a - b
def x <*> y = x * y
def uses a b = a <+> b <-> a <*> b
#[inline] #[noinline]
def attrs (xs: []f64) =
  #[sequential] #[stripmine(2)] map (\(#[true_dep] x) -> x) xs
def fnparam (f: (x: i64) -> [x]f64) = f 3
def holes = ???
def chars = ('a', "hi\n", '\'')
def constr = (#some 1, #none, map #some [1])
