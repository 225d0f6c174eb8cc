//! Random sum-structured programs for the sharding tests (docs/mpi.md): entry points over rows
//! `xs: [n][3]f64` and `ys: [n]f64` (to be sharded) and replicated parameters `w: [3]f64` and
//! `c: f64`, whose results are, by construction, a sum over the rows, a vector of such sums,
//! the gradient of a sum (with `vjp`), a map over the rows and a replicated value.
//!
//! A sum is built from `f64.sum` and `hist` over random per-row expressions, combined with
//! `+`, `-`, negation, products and quotients by replicated values, replicated terms (which
//! the sharded program must count once), selections under replicated conditions and a
//! sequential loop. Per-row expressions are random trees of arithmetic, `max`, `sin`, `tanh`,
//! `exp` of a bounded value and row-dependent `if`.

use gradus::shard::Combine;
use gradus_check::SplitMix64;

/// A random program, its entry point `main`, and how each of its results combines.
pub struct SumProgram {
    pub source: String,
    pub combine: Vec<Combine>,
}

struct Gen(SplitMix64);

impl Gen {
    fn below(&mut self, k: u64) -> u64 {
        self.0.next_u64() % k
    }

    fn constant(&mut self) -> String {
        ["0.5", "1.25", "(-0.75)", "2.0"][self.below(4) as usize].to_string()
    }

    /// A per-row expression of `x` (a row of `xs`), `y`, `w` and `c`, or without the row
    /// (`row = false`): a replicated expression.
    fn expr(&mut self, depth: u32, row: bool) -> String {
        if depth == 0 || self.below(4) == 0 {
            return self.leaf(row);
        }
        let d = depth - 1;
        match self.below(8) {
            0 => format!("({} + {})", self.expr(d, row), self.expr(d, row)),
            1 => format!("({} - {})", self.expr(d, row), self.expr(d, row)),
            2 | 3 => format!("({} * {})", self.expr(d, row), self.expr(d, row)),
            4 => format!("(f64.max {} {})", self.expr(d, row), self.expr(d, row)),
            5 => format!("(f64.sin {})", self.expr(d, row)),
            6 => format!("(f64.exp (f64.tanh {}))", self.expr(d, row)),
            _ => format!(
                "(if {} > 0 then {} else {})",
                self.expr(d, row),
                self.expr(d, row),
                self.expr(d, row)
            ),
        }
    }

    fn leaf(&mut self, row: bool) -> String {
        let j = self.below(3);
        match self.below(if row { 6 } else { 3 }) {
            0 => format!("w[{j}]"),
            1 => "c".to_string(),
            2 => self.constant(),
            3 => "y".to_string(),
            _ => format!("x[{j}]"),
        }
    }

    fn row(&mut self, depth: u32) -> String {
        self.expr(depth, true)
    }

    fn rep(&mut self, depth: u32) -> String {
        self.expr(depth, false)
    }

    /// A scalar sum over the rows.
    fn sum(&mut self, depth: u32) -> String {
        if depth == 0 || self.below(3) == 0 {
            return self.base_sum();
        }
        let d = depth - 1;
        match self.below(9) {
            0 => format!("({} + {})", self.sum(d), self.sum(d)),
            1 => format!("({} - {})", self.sum(d), self.sum(d)),
            2 => format!("(-{})", self.sum(d)),
            3 => format!("({} * {})", self.rep(2), self.sum(d)),
            4 => format!(
                "({} / (1 + {} * {}))",
                self.sum(d),
                self.rep(1),
                self.rep(1)
            ),
            5 => format!("({} + {})", self.sum(d), self.rep(2)),
            6 => format!(
                "(if {} > 0 then {} else {})",
                self.rep(2),
                self.sum(d),
                self.sum(d)
            ),
            7 => format!(
                "(if {} > 0 then {} else {})",
                self.rep(2),
                self.sum(d),
                self.rep(2)
            ),
            _ => format!(
                "(loop acc = {} for i < 2 do acc * {} + {})",
                self.rep(1),
                self.rep(1),
                self.sum(d)
            ),
        }
    }

    fn base_sum(&mut self) -> String {
        let j = self.below(3);
        if self.below(3) == 0 {
            format!("({})[{j}]", self.histogram())
        } else {
            format!("f64.sum (map2 (\\x y -> {}) xs ys)", self.row(3))
        }
    }

    /// A `[3]f64` sum over the rows: a histogram of row values by a row-dependent bin.
    fn histogram(&mut self) -> String {
        let j = self.below(3);
        format!(
            "hist (+) 0 3 (map (\\x -> i64.f64 (f64.abs x[{j}] * 2.5) % 3) xs) (map2 (\\x y -> {}) xs ys)",
            self.row(3)
        )
    }

    fn vector_sum(&mut self) -> String {
        if self.below(2) == 0 {
            self.histogram()
        } else {
            format!(
                "reduce (map2 (+)) (replicate 3 0) (map2 (\\x y -> map (\\xj -> xj * {}) x) xs ys)",
                self.row(2)
            )
        }
    }
}

/// The program of `seed`.
pub fn sum_program(seed: u64) -> SumProgram {
    let mut g = Gen(SplitMix64::new(seed));
    let total = g.sum(3);
    let vector = g.vector_sum();
    // A term that reads `w[0]` and `c`, so that neither gradient is zero by construction.
    let objective = format!(
        "{} + f64.sum (map2 (\\x y -> w[0] * x[1] + c * y) xs ys)",
        g.sum(2)
    );
    let rows = format!("(x[{}] + {})", g.below(3), g.row(3));
    let replicated = g.rep(3);
    let source = format!(
        "entry main [n] (xs: [n][3]f64) (ys: [n]f64) (w: [3]f64) (c: f64) =\n  \
         let s = {total}\n  \
         let v = {vector}\n  \
         let (gw, gc) = vjp (\\(w, c) -> {objective}) (w, c) 1\n  \
         in (s, v, gw, gc, map2 (\\x y -> {rows}) xs ys, {replicated})\n"
    );
    use Combine::*;
    SumProgram {
        source,
        combine: vec![Sum, Sum, Sum, Sum, Concat, Replicated],
    }
}
