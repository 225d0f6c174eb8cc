//! Expanding the per-iteration allocations of a parallel loop so that it can be a kernel.
//!
//! **Takes** a parallel loop's counter, bound and body (lowered imperative IR). **Gives**, when
//! it can, the body with each allocation made once per iteration replaced by a view of that
//! iteration's part of one buffer for all iterations, the host statements that make and
//! release the buffers, and the body free of what then keeps it from being a kernel:
//! * an allocation qualifies when its size reads only variables of the enclosing code (no
//!   array loads), and, inside a sequential loop of the body, only when the array dies within
//!   that loop's iteration (the part is reused by every iteration of that loop);
//! * a `make_unique` of such an array while no alias of it is live (none taken, or each
//!   released) is dropped: a fresh part has one owner, so the copy it would make when shared
//!   is never needed.
//!
//! An array allocated in an iteration never outlives it (a kernel assigns nothing outside
//! itself), so the parts are free again when the loop ends. Pure: the buffers are named
//! `gr_parts_N` from a counter the caller owns.

use super::kernel_blocker;
use crate::backend::lower::imp::{self, Ex, Stm, Ty};
use crate::core::scalar::PrimType;
use std::collections::{BTreeSet, HashMap};

/// A parallel loop's body whose allocations were taken out of it (see [`expand`]).
pub(super) struct Hoisted {
    /// Host statements before the loop: one buffer per allocation site for all iterations.
    pub before: Vec<Stm>,
    /// The body, each allocation replaced by a view of its iteration's part of the buffer.
    pub body: Vec<Stm>,
    /// Host statements after the loop: the buffers released.
    pub after: Vec<Stm>,
    /// The buffers made in `before`, with their element types.
    pub buffers: Vec<(String, PrimType)>,
}

/// The loop's body with its allocations expanded (see the module's documentation), or `None`
/// when it has none to expand or still cannot be a kernel afterwards. `types`: the types of
/// the enclosing function's variables; `labels`: the counter that names the buffers.
pub(super) fn expand(
    var: &str,
    bound: &Ex,
    body: &[Stm],
    types: &HashMap<String, Ty>,
    labels: &mut usize,
) -> Option<Hoisted> {
    let mut inner = BTreeSet::new();
    declared_in(body, &mut inner);
    let site = HoistSite {
        var,
        bound,
        whole: body,
        inner: &inner,
    };
    let mut w = Walk {
        site: &site,
        labels,
        out: Hoisted {
            before: Vec::new(),
            body: Vec::new(),
            after: Vec::new(),
            buffers: Vec::new(),
        },
        fresh: BTreeSet::new(),
        aliases: HashMap::new(),
    };
    let new_body = w.stms(body, None)?;
    let mut h = w.out;
    h.body = new_body;
    if h.before.is_empty() || kernel_blocker(&h.body, types).is_some() {
        return None;
    }
    Some(h)
}

/// The state of one [`expand`].
struct Walk<'s, 'a> {
    site: &'s HoistSite<'a>,
    labels: &'s mut usize,
    out: Hoisted,
    /// Arrays whose allocation became a part.
    fresh: BTreeSet<String>,
    /// The aliases that may be live, in program order, each with the array it views (a
    /// loop's aliases counted live from its start).
    aliases: HashMap<String, String>,
}

impl Walk<'_, '_> {
    /// `stms` (part of the loop's body, inside the sequential loop whose body declares
    /// `scope`, if any) with its allocations replaced by views of the buffers.
    fn stms(&mut self, stms: &[Stm], scope: Option<&BTreeSet<String>>) -> Option<Vec<Stm>> {
        let mut out = Vec::with_capacity(stms.len());
        for s in stms {
            if let Some(s) = self.stm(s, scope)? {
                out.push(s);
            }
            match s {
                // Their bodies were walked statement by statement.
                Stm::If { .. } | Stm::For { .. } | Stm::While { .. } => {}
                Stm::Decref(a) => {
                    self.aliases.remove(a);
                }
                _ => self.note_aliases(std::slice::from_ref(s)),
            }
        }
        Some(out)
    }

    /// Records the pointer copies of `stms` as live aliases of the arrays they view.
    fn note_aliases(&mut self, stms: &[Stm]) {
        let mut flows = Vec::new();
        pointer_flows(stms, &mut flows);
        for (dst, src) in flows {
            let root = self.aliases.get(&src).cloned().unwrap_or(src);
            self.aliases.insert(dst, root);
        }
    }

    /// Whether an alias of `arr` may be live.
    fn shared(&self, arr: &str) -> bool {
        self.aliases.values().any(|root| root == arr)
    }

    /// One statement: `Some(None)` when it goes, `None` when the loop cannot be expanded.
    fn stm(&mut self, s: &Stm, scope: Option<&BTreeSet<String>>) -> Option<Option<Stm>> {
        Some(Some(match s {
            Stm::Alloc { arr, elem, count } => return self.alloc(arr, *elem, count, scope),
            Stm::MakeUnique { arr, .. } if self.fresh.contains(arr) && !self.shared(arr) => {
                return Some(None);
            }
            Stm::If { cond, then, els } => Stm::If {
                cond: cond.clone(),
                then: self.stms(then, scope)?,
                els: self.stms(els, scope)?,
            },
            Stm::For {
                var,
                bound,
                down,
                body,
                independent,
                at,
            } => Stm::For {
                var: var.clone(),
                bound: bound.clone(),
                down: *down,
                body: self.loop_body(body)?,
                independent: *independent,
                at: *at,
            },
            Stm::While { cond, body, at } => Stm::While {
                cond: cond.clone(),
                body: self.loop_body(body)?,
                at: *at,
            },
            other => other.clone(),
        }))
    }

    /// A sequential loop's body: what a later iteration aliases counts for the earlier ones.
    fn loop_body(&mut self, body: &[Stm]) -> Option<Vec<Stm>> {
        self.note_aliases(body);
        let mut declared = BTreeSet::new();
        declared_in(body, &mut declared);
        self.stms(body, Some(&declared))
    }

    fn alloc(
        &mut self,
        arr: &str,
        elem: PrimType,
        count: &Ex,
        scope: Option<&BTreeSet<String>>,
    ) -> Option<Option<Stm>> {
        let mut reads = BTreeSet::new();
        if ex_vars(count, &mut reads) || reads.iter().any(|v| self.site.inner.contains(v)) {
            return None;
        }
        // Inside a sequential loop the part is reused by every iteration of that loop: only
        // for an array that dies in the iteration that made it.
        if let Some(scope) = scope
            && escapes(arr, self.site.whole, scope)
        {
            return None;
        }
        *self.labels += 1;
        let big = format!("gr_parts_{}", self.labels);
        self.out.buffers.push((big.clone(), elem));
        self.out.before.push(Stm::Decl {
            ty: Ty::Array(elem),
            name: big.clone(),
            init: None,
        });
        self.out.before.push(Stm::Alloc {
            arr: big.clone(),
            elem,
            count: Ex::times(self.site.bound.clone(), count.clone()),
        });
        self.out.after.push(Stm::Decref(big.clone()));
        self.fresh.insert(arr.to_string());
        self.aliases.retain(|_, root| root != arr);
        Some(Some(Stm::SetArr {
            dst: arr.to_string(),
            src: big,
            offset: Ex::times(Ex::var(self.site.var), count.clone()),
            share: imp::Share::Borrow,
        }))
    }
}

/// The variables an expression reads, and whether it loads from an array.
fn ex_vars(e: &Ex, out: &mut BTreeSet<String>) -> bool {
    match e {
        Ex::Var(v) => {
            out.insert(v.clone());
            false
        }
        Ex::Const(_) => false,
        Ex::Prim(_, args) => args.iter().fold(false, |l, a| ex_vars(a, out) | l),
        Ex::Idx(_, a, b) => ex_vars(a, out) | ex_vars(b, out),
        Ex::Load { .. } => true,
        Ex::Not(a) => ex_vars(a, out),
    }
}

/// Where [`expand`] works: the parallel loop's counter, bound and body,
/// and the variables the body declares.
struct HoistSite<'a> {
    var: &'a str,
    bound: &'a Ex,
    whole: &'a [Stm],
    inner: &'a BTreeSet<String>,
}

/// Whether array `arr`, declared in a loop body that declares `scope`, may outlive an
/// iteration of that loop: its pointer (or a view of it) reaches a variable declared outside.
fn escapes(arr: &str, body: &[Stm], scope: &BTreeSet<String>) -> bool {
    if !scope.contains(arr) {
        return true;
    }
    let mut aliases = BTreeSet::from([arr.to_string()]);
    loop {
        let mut flows = Vec::new();
        pointer_flows(body, &mut flows);
        let before = aliases.len();
        for (dst, src) in flows {
            if aliases.contains(&src) {
                if !scope.contains(&dst) {
                    return true;
                }
                aliases.insert(dst);
            }
        }
        if aliases.len() == before {
            return false;
        }
    }
}

/// Every copy of an array pointer in a statement list, as (destination, source), and every
/// array a block may be taken from (`AllocOrTake`) as flowing to its destination.
fn pointer_flows(stms: &[Stm], out: &mut Vec<(String, String)>) {
    for s in stms {
        match s {
            Stm::SetArr { dst, src, .. } => out.push((dst.clone(), src.clone())),
            Stm::Set {
                name,
                val: Ex::Var(src),
            }
            | Stm::Decl {
                name,
                init: Some(Ex::Var(src)),
                ..
            } => out.push((name.clone(), src.clone())),
            Stm::AllocOrTake { arr, srcs, .. } => {
                out.extend(srcs.iter().map(|src| (arr.clone(), src.clone())))
            }
            Stm::For { body, .. } | Stm::ParFor { body, .. } | Stm::While { body, .. } => {
                pointer_flows(body, out)
            }
            Stm::GroupTree(t) => pointer_flows(&t.host, out),
            Stm::If { then, els, .. } => {
                pointer_flows(then, out);
                pointer_flows(els, out);
            }
            _ => {}
        }
    }
}

/// Every variable a statement list declares (at any depth).
fn declared_in(stms: &[Stm], out: &mut BTreeSet<String>) {
    for s in stms {
        match s {
            Stm::Decl { name, .. } => {
                out.insert(name.clone());
            }
            Stm::For { var, body, .. } | Stm::ParFor { var, body, .. } => {
                out.insert(var.clone());
                declared_in(body, out);
            }
            Stm::While { body, .. } => declared_in(body, out),
            Stm::GroupTree(t) => declared_in(&t.host, out),
            Stm::If { then, els, .. } => {
                declared_in(then, out);
                declared_in(els, out);
            }
            _ => {}
        }
    }
}
