//! Readers of the ADBench input files (GMM, BA, HAND, LSTM), as described in
//! `benchmarks/README.md` §GMM, §BA, §HAND and §LSTM, and their conversion into the argument
//! values of the entry points in `benchmarks/*.fut`.
//!
//! A reader takes the text of a file and returns the problem with every array flattened
//! row-major, ADBench's replication rules already applied (GMM's replicate-point mode, BA's
//! single camera/point/weight/feature), so that the `.fut` programs see the full-sized inputs.
//! Malformed input gives an [`InputError`] naming the file and the offending token, never a
//! panic. [`BaJacobian::from_blocks`] packs the per-observation blocks computed by
//! `benchmarks/ba.fut` into ADBench's CSR layout.

use gradus::value::{Array, Buffer, Scalar, Value};
use std::fmt;
use std::path::{Path, PathBuf};

/// Why an input file could not be read.
#[derive(Clone, Debug, PartialEq)]
pub struct InputError {
    /// The file (or a description of the input) the error is about.
    pub source: String,
    /// What is wrong, with the line number where one applies.
    pub message: String,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.source, self.message)
    }
}

impl std::error::Error for InputError {}

fn read_text(path: &Path) -> Result<String, InputError> {
    std::fs::read_to_string(path).map_err(|e| InputError {
        source: path.display().to_string(),
        message: format!("cannot read the file: {e}"),
    })
}

/// A stream of tokens separated by whitespace (or by other separator characters), with line
/// numbers for error messages.
struct Tokens<'a> {
    source: &'a str,
    items: Vec<(&'a str, usize)>,
    pos: usize,
}

impl<'a> Tokens<'a> {
    fn new(source: &'a str, text: &'a str, is_sep: impl Fn(char) -> bool) -> Tokens<'a> {
        let items = text
            .lines()
            .enumerate()
            .flat_map(|(l, line)| {
                line.split(|c: char| c.is_whitespace() || is_sep(c))
                    .filter(|t| !t.is_empty())
                    .map(move |t| (t, l + 1))
            })
            .collect();
        Tokens {
            source,
            items,
            pos: 0,
        }
    }

    fn error(&self, message: String) -> InputError {
        InputError {
            source: self.source.to_string(),
            message,
        }
    }

    fn remaining(&self) -> usize {
        self.items.len() - self.pos
    }

    fn next(&mut self, what: &str) -> Result<(&'a str, usize), InputError> {
        match self.items.get(self.pos) {
            Some(&t) => {
                self.pos += 1;
                Ok(t)
            }
            None => Err(self.error(format!("the file ends where {what} was expected"))),
        }
    }

    fn f64(&mut self, what: &str) -> Result<f64, InputError> {
        let (t, line) = self.next(what)?;
        t.parse::<f64>().map_err(|_| {
            self.error(format!(
                "line {line}: expected {what} (a number), found \"{t}\""
            ))
        })
    }

    fn int(&mut self, what: &str) -> Result<i64, InputError> {
        let (t, line) = self.next(what)?;
        t.parse::<i64>().map_err(|_| {
            self.error(format!(
                "line {line}: expected {what} (an integer), found \"{t}\""
            ))
        })
    }

    /// A non-negative integer usable as a count or size.
    fn count(&mut self, what: &str) -> Result<usize, InputError> {
        let line = self.items.get(self.pos).map_or(0, |t| t.1);
        let v = self.int(what)?;
        usize::try_from(v).map_err(|_| self.error(format!("line {line}: {what} is negative ({v})")))
    }

    fn f64s(&mut self, n: usize, what: &str) -> Result<Vec<f64>, InputError> {
        if self.remaining() < n {
            return Err(self.error(format!(
                "expected {n} numbers for {what}, but only {} tokens are left",
                self.remaining()
            )));
        }
        (0..n).map(|_| self.f64(what)).collect()
    }

    fn end(&self) -> Result<(), InputError> {
        match self.items.get(self.pos) {
            None => Ok(()),
            Some((t, line)) => Err(self.error(format!(
                "line {line}: unexpected \"{t}\" after the end of the data"
            ))),
        }
    }
}

/// `a * b`, or an error naming the sizes when it overflows.
fn checked_size(source: &str, dims: &[usize]) -> Result<usize, InputError> {
    dims.iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| InputError {
            source: source.to_string(),
            message: format!("the sizes {dims:?} are too large"),
        })
}

/// An f64 array value of the given shape.
pub fn f64_array(shape: &[usize], data: Vec<f64>) -> Value {
    Value::Array(
        Array::new(shape.to_vec(), Buffer::F64(data))
            .expect("f64_array: element count does not match the shape"),
    )
}

/// An i64 array value of the given shape.
pub fn i64_array(shape: &[usize], data: Vec<i64>) -> Value {
    Value::Array(
        Array::new(shape.to_vec(), Buffer::I64(data))
            .expect("i64_array: element count does not match the shape"),
    )
}

fn f64_scalar(x: f64) -> Value {
    Value::Scalar(Scalar::F64(x))
}

fn i64_scalar(x: i64) -> Value {
    Value::Scalar(Scalar::I64(x))
}

// ------------------------------------------------------------------------------------------
// GMM

/// An ADBench GMM instance (benchmarks/README.md §GMM).
#[derive(Clone, Debug, PartialEq)]
pub struct Gmm {
    /// Dimension of the data.
    pub d: usize,
    /// Number of components.
    pub k: usize,
    /// Number of data points.
    pub n: usize,
    /// `[k]` unnormalised log weights.
    pub alphas: Vec<f64>,
    /// `[k][d]` means.
    pub means: Vec<f64>,
    /// `[k][d(d+1)/2]` packed inverse-covariance factors.
    pub icf: Vec<f64>,
    /// `[n][d]` data points (replicated from one point in replicate-point mode).
    pub x: Vec<f64>,
    /// Wishart scale.
    pub gamma: f64,
    /// Wishart degrees-of-freedom offset.
    pub m: i64,
    /// Whether the file held a single point that was replicated `n` times.
    pub replicated: bool,
}

impl Gmm {
    /// Reads a GMM file.
    pub fn read(path: &Path) -> Result<Gmm, InputError> {
        Gmm::parse(&path.display().to_string(), &read_text(path)?)
    }

    /// Parses the text of a GMM file; `source` names it in errors.
    pub fn parse(source: &str, text: &str) -> Result<Gmm, InputError> {
        let mut t = Tokens::new(source, text, |_| false);
        let d = t.count("d")?;
        let k = t.count("K")?;
        let n = t.count("n")?;
        let s = d * (d + 1) / 2;
        let alphas = t.f64s(k, "alphas")?;
        let means = t.f64s(checked_size(source, &[k, d])?, "means")?;
        let icf = t.f64s(checked_size(source, &[k, s])?, "icf")?;
        let all = checked_size(source, &[n, d])?;
        // Replicate-point mode is recognised by the number of tokens left (benchmarks/README.md
        // §GMM).
        let replicated = t.remaining() == d + 2 && all + 2 != d + 2;
        let x = if replicated {
            let point = t.f64s(d, "the replicated point")?;
            let mut x = Vec::with_capacity(all);
            for _ in 0..n {
                x.extend_from_slice(&point);
            }
            x
        } else {
            t.f64s(all, "the points")?
        };
        let gamma = t.f64("the Wishart gamma")?;
        let m = t.int("the Wishart m")?;
        t.end()?;
        Ok(Gmm {
            d,
            k,
            n,
            alphas,
            means,
            icf,
            x,
            gamma,
            m,
            replicated,
        })
    }

    /// Length of a packed `icf` row, `d(d+1)/2`.
    pub fn s(&self) -> usize {
        self.d * (self.d + 1) / 2
    }

    /// Number of gradient entries, `K(d+1)(d+2)/2`.
    pub fn num_params(&self) -> usize {
        self.k + self.k * self.d + self.k * self.s()
    }

    /// The arguments of `benchmarks/gmm.fut`'s `objective`:
    /// `alphas means icf x wishart_gamma wishart_m`.
    pub fn to_values(&self) -> Vec<Value> {
        vec![
            f64_array(&[self.k], self.alphas.clone()),
            f64_array(&[self.k, self.d], self.means.clone()),
            f64_array(&[self.k, self.s()], self.icf.clone()),
            f64_array(&[self.n, self.d], self.x.clone()),
            f64_scalar(self.gamma),
            i64_scalar(self.m),
        ]
    }
}

// ------------------------------------------------------------------------------------------
// BA

/// Number of camera parameters.
pub const BA_CAM: usize = 11;
/// Stored entries of one reprojection row of the BA Jacobian (11 + 3 + 1).
pub const BA_BLOCK: usize = 15;

/// An ADBench bundle-adjustment instance (benchmarks/README.md §BA), already replicated.
#[derive(Clone, Debug, PartialEq)]
pub struct Ba {
    /// Number of cameras.
    pub n: usize,
    /// Number of points.
    pub m: usize,
    /// Number of observations.
    pub p: usize,
    /// `[n][11]` cameras.
    pub cams: Vec<f64>,
    /// `[m][3]` points.
    pub x: Vec<f64>,
    /// `[p]` weights.
    pub w: Vec<f64>,
    /// `[p][2]` (camera, point) of each observation.
    pub obs: Vec<i64>,
    /// `[p][2]` measured features.
    pub feat: Vec<f64>,
}

impl Ba {
    /// Reads a BA file.
    pub fn read(path: &Path) -> Result<Ba, InputError> {
        Ba::parse(&path.display().to_string(), &read_text(path)?)
    }

    /// Parses the text of a BA file and expands its single camera, point, weight and feature
    /// as ADBench does (benchmarks/README.md §BA).
    pub fn parse(source: &str, text: &str) -> Result<Ba, InputError> {
        let mut t = Tokens::new(source, text, |_| false);
        let n = t.count("n (cameras)")?;
        let m = t.count("m (points)")?;
        let p = t.count("p (observations)")?;
        if p > 0 && (n == 0 || m == 0) {
            return Err(t.error(format!(
                "{p} observations need at least one camera and one point (n = {n}, m = {m})"
            )));
        }
        let cam = t.f64s(BA_CAM, "the camera")?;
        let point = t.f64s(3, "the point")?;
        let weight = t.f64("the weight")?;
        let feature = t.f64s(2, "the feature")?;
        t.end()?;
        checked_size(source, &[n, BA_CAM])?;
        checked_size(source, &[m, 3])?;
        checked_size(source, &[p, 2])?;
        let cams = cam.repeat(n);
        let x = point.repeat(m);
        let w = vec![weight; p];
        let obs = (0..p)
            .flat_map(|i| [(i % n) as i64, (i % m) as i64])
            .collect();
        let feat = feature.repeat(p);
        Ok(Ba {
            n,
            m,
            p,
            cams,
            x,
            w,
            obs,
            feat,
        })
    }

    /// The arguments of `benchmarks/ba.fut`'s entry points: `cams x w obs feat`.
    pub fn to_values(&self) -> Vec<Value> {
        vec![
            f64_array(&[self.n, BA_CAM], self.cams.clone()),
            f64_array(&[self.m, 3], self.x.clone()),
            f64_array(&[self.p], self.w.clone()),
            i64_array(&[self.p, 2], self.obs.clone()),
            f64_array(&[self.p, 2], self.feat.clone()),
        ]
    }

    /// Number of Jacobian columns, `11n + 3m + p`.
    pub fn num_columns(&self) -> usize {
        BA_CAM * self.n + 3 * self.m + self.p
    }
}

/// The BA Jacobian in ADBench's CSR layout (benchmarks/README.md §BA).
#[derive(Clone, Debug, PartialEq)]
pub struct BaJacobian {
    /// Number of rows, `3p`.
    pub num_rows: usize,
    /// Number of columns, `11n + 3m + p`.
    pub num_cols: usize,
    /// `3p + 1` row offsets.
    pub rows: Vec<usize>,
    /// `31p` column indices.
    pub cols: Vec<usize>,
    /// `31p` values.
    pub vals: Vec<f64>,
}

impl BaJacobian {
    /// Packs the per-observation blocks: `blocks` is `[p][2][15]` (the derivatives of the two
    /// reprojection residuals of an observation with respect to its camera's 11 parameters,
    /// its point's 3 coordinates and its weight), `weight_rows` is `[p]` (`∂zach[i]/∂w[i]`).
    /// Returns `None` if the lengths do not fit `ba`.
    pub fn from_blocks(ba: &Ba, blocks: &[f64], weight_rows: &[f64]) -> Option<BaJacobian> {
        let p = ba.p;
        if blocks.len() != p * 2 * BA_BLOCK || weight_rows.len() != p || ba.obs.len() != 2 * p {
            return None;
        }
        let nnz = 31 * p;
        let mut rows = Vec::with_capacity(3 * p + 1);
        let mut cols = Vec::with_capacity(nnz);
        let mut vals = Vec::with_capacity(nnz);
        rows.push(0);
        let point_base = BA_CAM * ba.n;
        let weight_base = point_base + 3 * ba.m;
        for i in 0..p {
            let cam = usize::try_from(ba.obs[2 * i]).ok()?;
            let pt = usize::try_from(ba.obs[2 * i + 1]).ok()?;
            for a in 0..2 {
                cols.extend((0..BA_CAM).map(|t| BA_CAM * cam + t));
                cols.extend((0..3).map(|t| point_base + 3 * pt + t));
                cols.push(weight_base + i);
                let start = (2 * i + a) * BA_BLOCK;
                vals.extend_from_slice(&blocks[start..start + BA_BLOCK]);
                rows.push(cols.len());
            }
        }
        for (i, &v) in weight_rows.iter().enumerate() {
            cols.push(weight_base + i);
            vals.push(v);
            rows.push(cols.len());
        }
        Some(BaJacobian {
            num_rows: 3 * p,
            num_cols: ba.num_columns(),
            rows,
            cols,
            vals,
        })
    }

    /// The Jacobian in ADBench's output layout (benchmarks/README.md §BA).
    pub fn to_adbench_text(&self) -> String {
        let join = |v: &mut dyn Iterator<Item = String>| v.collect::<Vec<_>>().join(" ");
        format!(
            "{} {}\n{}\n{}\n{}\n{}\n{}\n",
            self.num_rows,
            self.num_cols,
            self.rows.len(),
            join(&mut self.rows.iter().map(|r| r.to_string())),
            self.cols.len(),
            join(&mut self.cols.iter().map(|c| c.to_string())),
            join(&mut self.vals.iter().map(|v| format!("{v:e}"))),
        )
    }
}

// ------------------------------------------------------------------------------------------
// HAND

/// The hand model: skeleton, rest mesh and skinning weights (benchmarks/README.md §HAND).
#[derive(Clone, Debug, PartialEq)]
pub struct HandModel {
    /// Bone names, in file order.
    pub names: Vec<String>,
    /// `[B]` parent bone, -1 for the root.
    pub parent: Vec<i64>,
    /// `[B][4][4]` rest transforms relative to the parent.
    pub base_rel: Vec<f64>,
    /// `[B][4][4]` inverses of the rest absolute transforms.
    pub inv_base_abs: Vec<f64>,
    /// `[V][3]` rest vertex positions.
    pub base_pos: Vec<f64>,
    /// `[B][V]` skinning weights.
    pub weight: Vec<f64>,
    /// `[T][3]` triangles.
    pub tri: Vec<i64>,
}

impl HandModel {
    /// Number of bones.
    pub fn bones(&self) -> usize {
        self.parent.len()
    }
    /// Number of vertices.
    pub fn vertices(&self) -> usize {
        self.base_pos.len() / 3
    }
    /// Number of triangles.
    pub fn triangles(&self) -> usize {
        self.tri.len() / 3
    }

    /// Reads `bones.txt`, `vertices.txt` and `triangles.txt` from a model directory.
    pub fn read(dir: &Path) -> Result<HandModel, InputError> {
        let file = |name: &str| -> Result<(String, String), InputError> {
            let p: PathBuf = dir.join(name);
            Ok((p.display().to_string(), read_text(&p)?))
        };
        let (bs, bones) = file("bones.txt")?;
        let (vs, vertices) = file("vertices.txt")?;
        let (ts, triangles) = file("triangles.txt")?;
        HandModel::parse(&bs, &bones, &vs, &vertices, &ts, &triangles)
    }

    /// Parses the three model files (each with the name used in errors).
    pub fn parse(
        bones_source: &str,
        bones: &str,
        vertices_source: &str,
        vertices: &str,
        triangles_source: &str,
        triangles: &str,
    ) -> Result<HandModel, InputError> {
        let err = |source: &str, line: usize, message: String| InputError {
            source: source.to_string(),
            message: format!("line {line}: {message}"),
        };
        let mut names = Vec::new();
        let mut parent = Vec::new();
        let mut base_rel = Vec::new();
        let mut inv_base_abs = Vec::new();
        for (l, line) in bones
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let fields: Vec<&str> = line.trim().split(':').collect();
            if fields.len() != 34 {
                return Err(err(
                    bones_source,
                    l + 1,
                    format!("a bone has 34 ':'-separated fields, found {}", fields.len()),
                ));
            }
            let b = names.len() as i64;
            let par: i64 = fields[1].trim().parse().map_err(|_| {
                err(
                    bones_source,
                    l + 1,
                    format!("bad parent index \"{}\"", fields[1]),
                )
            })?;
            if par < -1 || par >= b {
                return Err(err(
                    bones_source,
                    l + 1,
                    format!("the parent of bone {b} must be -1 or an earlier bone, found {par}"),
                ));
            }
            let mut nums = Vec::with_capacity(32);
            for f in &fields[2..] {
                nums.push(f.trim().parse::<f64>().map_err(|_| {
                    err(
                        bones_source,
                        l + 1,
                        format!("expected a number, found \"{f}\""),
                    )
                })?);
            }
            names.push(fields[0].to_string());
            parent.push(par);
            base_rel.extend_from_slice(&nums[..16]);
            inv_base_abs.extend_from_slice(&nums[16..]);
        }
        let nbones = names.len();
        let mut base_pos = Vec::new();
        let mut pairs = Vec::new();
        let vlines: Vec<(usize, &str)> = vertices
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .collect();
        let nverts = vlines.len();
        for (v, (l, line)) in vlines.iter().enumerate() {
            let fields: Vec<&str> = line.trim().split(':').collect();
            let num = |i: usize| -> Result<f64, InputError> {
                let f = fields.get(i).ok_or_else(|| {
                    err(vertices_source, l + 1, "the line is too short".to_string())
                })?;
                f.trim().parse::<f64>().map_err(|_| {
                    err(
                        vertices_source,
                        l + 1,
                        format!("expected a number, found \"{f}\""),
                    )
                })
            };
            for i in 0..3 {
                base_pos.push(num(i)?);
            }
            let count = num(8)?;
            if count < 0.0 || count.fract() != 0.0 || fields.len() != 9 + 2 * count as usize {
                return Err(err(
                    vertices_source,
                    l + 1,
                    format!(
                        "the bone count {count} does not match the {} fields",
                        fields.len()
                    ),
                ));
            }
            for j in 0..count as usize {
                let bone = num(9 + 2 * j)?;
                if bone < 0.0 || bone.fract() != 0.0 || bone as usize >= nbones {
                    return Err(err(
                        vertices_source,
                        l + 1,
                        format!("bone index {bone} is not one of the {nbones} bones"),
                    ));
                }
                pairs.push((bone as usize, v, num(10 + 2 * j)?));
            }
        }
        let mut weight = vec![0.0; nbones * nverts];
        for (b, v, w) in pairs {
            weight[b * nverts + v] = w;
        }
        let mut tri = Vec::new();
        for (l, line) in triangles
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let fields: Vec<&str> = line.trim().split(':').collect();
            if fields.len() != 3 {
                return Err(err(
                    triangles_source,
                    l + 1,
                    format!("a triangle has 3 vertex indices, found {}", fields.len()),
                ));
            }
            for f in fields {
                let v: i64 = f.trim().parse().map_err(|_| {
                    err(triangles_source, l + 1, format!("bad vertex index \"{f}\""))
                })?;
                if v < 0 || v as usize >= nverts {
                    return Err(err(
                        triangles_source,
                        l + 1,
                        format!("vertex index {v} is not one of the {nverts} vertices"),
                    ));
                }
                tri.push(v);
            }
        }
        Ok(HandModel {
            names,
            parent,
            base_rel,
            inv_base_abs,
            base_pos,
            weight,
            tri,
        })
    }

    /// The model's arguments of `benchmarks/hand.fut`'s entry points:
    /// `parent base_rel inv_base_abs base_pos weight tri`.
    pub fn to_values(&self) -> Vec<Value> {
        let b = self.bones();
        let v = self.vertices();
        vec![
            i64_array(&[b], self.parent.clone()),
            f64_array(&[b, 4, 4], self.base_rel.clone()),
            f64_array(&[b, 4, 4], self.inv_base_abs.clone()),
            f64_array(&[v, 3], self.base_pos.clone()),
            f64_array(&[b, v], self.weight.clone()),
            i64_array(&[self.triangles(), 3], self.tri.clone()),
        ]
    }
}

/// Number of pose parameters.
pub const HAND_THETA: usize = 26;

/// An ADBench HAND instance (benchmarks/README.md §HAND), simple or complicated.
#[derive(Clone, Debug, PartialEq)]
pub struct Hand {
    /// The model.
    pub model: HandModel,
    /// `[N]` vertex (simple) or triangle (complicated) index per point.
    pub corr: Vec<i64>,
    /// `[N][3]` measured points.
    pub pts: Vec<f64>,
    /// `[N][2]` barycentric coordinates (complicated only).
    pub us: Option<Vec<f64>>,
    /// `[26]` pose parameters.
    pub theta: Vec<f64>,
}

impl Hand {
    /// Reads an input file and the model in the `model/` directory next to it; `complicated`
    /// chooses the reader (the files do not say).
    pub fn read(path: &Path, complicated: bool) -> Result<Hand, InputError> {
        let dir = path.parent().unwrap_or(Path::new(".")).join("model");
        let model = HandModel::read(&dir)?;
        Hand::parse(
            model,
            &path.display().to_string(),
            &read_text(path)?,
            complicated,
        )
    }

    /// Parses an input file against a model.
    pub fn parse(
        model: HandModel,
        source: &str,
        text: &str,
        complicated: bool,
    ) -> Result<Hand, InputError> {
        let mut t = Tokens::new(source, text, |_| false);
        let n = t.count("N (points)")?;
        let nt = t.count("the θ count")?;
        if nt != HAND_THETA {
            return Err(t.error(format!("expected {HAND_THETA} pose parameters, found {nt}")));
        }
        let limit = if complicated {
            model.triangles()
        } else {
            model.vertices()
        };
        let mut corr = Vec::with_capacity(n);
        let mut pts = Vec::with_capacity(3 * n);
        for _ in 0..n {
            let line = t.items.get(t.pos).map_or(0, |x| x.1);
            let c = t.int("a correspondence index")?;
            if c < 0 || c as usize >= limit {
                return Err(t.error(format!(
                    "line {line}: correspondence {c} is out of range (0..{limit})"
                )));
            }
            corr.push(c);
            pts.extend(t.f64s(3, "a point")?);
        }
        let us = if complicated {
            Some(t.f64s(2 * n, "the barycentric coordinates")?)
        } else {
            None
        };
        let theta = t.f64s(HAND_THETA, "θ")?;
        t.end()?;
        Ok(Hand {
            model,
            corr,
            pts,
            us,
            theta,
        })
    }

    /// Number of points.
    pub fn n(&self) -> usize {
        self.corr.len()
    }

    /// The arguments of `benchmarks/hand.fut`'s entry points: the model's values, then
    /// `corr pts theta` (simple) or `corr pts us theta` (complicated).
    pub fn to_values(&self) -> Vec<Value> {
        let n = self.n();
        let mut v = self.model.to_values();
        v.push(i64_array(&[n], self.corr.clone()));
        v.push(f64_array(&[n, 3], self.pts.clone()));
        if let Some(us) = &self.us {
            v.push(f64_array(&[n, 2], us.clone()));
        }
        v.push(f64_array(&[HAND_THETA], self.theta.clone()));
        v
    }
}

// ------------------------------------------------------------------------------------------
// LSTM

/// An ADBench D-LSTM instance (benchmarks/README.md §LSTM).
#[derive(Clone, Debug, PartialEq)]
pub struct Lstm {
    /// Number of layers.
    pub l: usize,
    /// Number of characters.
    pub c: usize,
    /// Bits per character (hidden size).
    pub b: usize,
    /// `[2l][4b]` weights and biases.
    pub main: Vec<f64>,
    /// `[3][b]` input scaling, output scaling, output bias.
    pub extra: Vec<f64>,
    /// `[2l][b]` initial hidden and cell states.
    pub state: Vec<f64>,
    /// `[c][b]` the text.
    pub seq: Vec<f64>,
}

impl Lstm {
    /// Reads an LSTM file.
    pub fn read(path: &Path) -> Result<Lstm, InputError> {
        Lstm::parse(&path.display().to_string(), &read_text(path)?)
    }

    /// Parses the text of an LSTM file.
    pub fn parse(source: &str, text: &str) -> Result<Lstm, InputError> {
        let mut t = Tokens::new(source, text, |_| false);
        let l = t.count("l (layers)")?;
        let c = t.count("c (characters)")?;
        let b = t.count("b (bits)")?;
        let main = t.f64s(checked_size(source, &[2 * l, 4 * b])?, "main")?;
        let extra = t.f64s(checked_size(source, &[3, b])?, "extra")?;
        let state = t.f64s(checked_size(source, &[2 * l, b])?, "state")?;
        let seq = t.f64s(checked_size(source, &[c, b])?, "seq")?;
        t.end()?;
        Ok(Lstm {
            l,
            c,
            b,
            main,
            extra,
            state,
            seq,
        })
    }

    /// Number of gradient entries, `8lb + 3b`.
    pub fn num_params(&self) -> usize {
        8 * self.l * self.b + 3 * self.b
    }

    /// The arguments of `benchmarks/lstm.fut`'s entry points: `main extra state seq`.
    pub fn to_values(&self) -> Vec<Value> {
        vec![
            f64_array(&[2 * self.l, 4 * self.b], self.main.clone()),
            f64_array(&[3, self.b], self.extra.clone()),
            f64_array(&[2 * self.l, self.b], self.state.clone()),
            f64_array(&[self.c, self.b], self.seq.clone()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gmm_full_and_replicated() {
        let full = "2 2 2\n0 1\n1 2 3 4\n1 2 3 4 5 6\n1 2 3 4\n1.0 0\n";
        let g = Gmm::parse("full", full).unwrap();
        assert!(!g.replicated);
        assert_eq!(g.x, vec![1.0, 2.0, 3.0, 4.0]);
        assert_eq!(g.num_params(), 12);
        let rep = "2 2 3\n0 1\n1 2 3 4\n1 2 3 4 5 6\n7 8\n1.0 0\n";
        let g = Gmm::parse("rep", rep).unwrap();
        assert!(g.replicated);
        assert_eq!(g.x, vec![7.0, 8.0, 7.0, 8.0, 7.0, 8.0]);
        assert_eq!(g.to_values()[3].shape(), &[3, 2]);
    }

    #[test]
    fn gmm_errors_name_the_problem() {
        let e = Gmm::parse("f", "2 2 2\n0 x\n").unwrap_err();
        assert!(
            e.message.contains("line 2") && e.message.contains("\"x\""),
            "{e}"
        );
        let e = Gmm::parse("f", "2 1 5\n0\n1 2\n1 2 3\n1 2 3\n").unwrap_err();
        assert!(e.message.contains("points"), "{e}");
        let e = Gmm::parse("f", "-2 1 1").unwrap_err();
        assert!(e.message.contains("negative"), "{e}");
    }

    #[test]
    fn ba_replication_and_csr() {
        let text = "2 3 4\n1 2 3 4 5 6 7 8 9 10 11\n1 2 3\n0.5\n10 20\n";
        let ba = Ba::parse("ba", text).unwrap();
        assert_eq!(ba.obs, vec![0, 0, 1, 1, 0, 2, 1, 0]);
        assert_eq!(ba.num_columns(), 22 + 9 + 4);
        let blocks: Vec<f64> = (0..4 * 2 * BA_BLOCK).map(|i| i as f64).collect();
        let j = BaJacobian::from_blocks(&ba, &blocks, &[-1.0; 4]).unwrap();
        assert_eq!(j.rows.len(), 13);
        assert_eq!(j.rows[8], 120);
        assert_eq!(*j.rows.last().unwrap(), 31 * 4);
        // observation 3 sees camera 1 and point 0; its weight column is 22 + 9 + 3
        let row6 = &j.cols[j.rows[6]..j.rows[7]];
        assert_eq!(&row6[..11], &(11..22).collect::<Vec<_>>()[..]);
        assert_eq!(&row6[11..], &[22, 23, 24, 34]);
        assert_eq!(j.cols[j.rows[11]], 34);
        assert!(BaJacobian::from_blocks(&ba, &blocks[1..], &[-1.0; 4]).is_none());
        assert!(Ba::parse("ba", "1 0 1\n").is_err());
    }

    #[test]
    fn lstm_shapes() {
        let text = "1 2 1\n1 2 3 4\n5 6 7 8\n1\n2\n3\n0\n0\n1\n0\n";
        let l = Lstm::parse("l", text).unwrap();
        assert_eq!(l.num_params(), 11);
        assert_eq!(l.to_values()[3].shape(), &[2, 1]);
        assert!(Lstm::parse("l", "1 2 1\n1 2 3\n").is_err());
    }

    #[test]
    fn hand_model_parsing() {
        let bone = |name: &str, parent: i64| {
            let nums: Vec<String> = (0..32).map(|i| i.to_string()).collect();
            format!("{name}:{parent}:{}\n", nums.join(":"))
        };
        let bones = bone("root", -1) + &bone("child", 0);
        let vertices = "1:2:3:0:0:0:0:0:2:0:0.25:1:0.75\n4:5:6:0:0:0:0:0:1:1:1\n";
        let triangles = "0:1:1\n";
        let m = HandModel::parse("b", &bones, "v", vertices, "t", triangles).unwrap();
        assert_eq!(m.parent, vec![-1, 0]);
        assert_eq!(m.weight, vec![0.25, 0.0, 0.75, 1.0]);
        assert_eq!(m.base_rel[..2], [0.0, 1.0]);
        assert_eq!(m.inv_base_abs[0], 16.0);
        let bad = bone("root", 1);
        assert!(HandModel::parse("b", &bad, "v", vertices, "t", triangles).is_err());
        let input = "1 26\n1 0.5 0.5 0.5\n".to_string() + &"0.1\n".repeat(26);
        let h = Hand::parse(m.clone(), "i", &input, false).unwrap();
        assert_eq!(h.to_values().len(), 9);
        assert!(Hand::parse(m.clone(), "i", &input, true).is_err());
        let far = "1 26\n7 0.5 0.5 0.5\n".to_string() + &"0.1\n".repeat(26);
        assert!(Hand::parse(m, "i", &far, false).is_err());
    }
}
