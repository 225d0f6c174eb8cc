"""Derivatives on demand (``prog.grad``, ``vjp``, ``jvp``, ``jacobian``, ``hessian``) against
the hand-written derived entry points and central finite differences, at random points."""

import pathlib

import numpy as np
import pytest

import gradus

DERIVE = pathlib.Path(__file__).resolve().parent / "derive.fut"


@pytest.fixture(scope="module", params=["interp", "c"])
def prog(request):
    return gradus.compile(DERIVE, backend=request.param)


def point(rng, n):
    return rng.standard_normal(n), rng.standard_normal(n), float(rng.standard_normal()), 3


def fd(f, args, k, h=1e-6):
    """Central differences of ``f`` (flattened) along every element of argument ``k``."""
    x = np.asarray(args[k], dtype=float)
    cols = []
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = h
        plus, minus = list(args), list(args)
        plus[k] = (x.ravel() + e).reshape(x.shape) if x.ndim else float(x + h)
        minus[k] = (x.ravel() - e).reshape(x.shape) if x.ndim else float(x - h)
        cols.append((np.ravel(f(*plus)) - np.ravel(f(*minus))) / (2 * h))
    return np.stack(cols, axis=-1)


def test_grad_matches_hand_written_and_finite_differences(prog):
    rng = np.random.default_rng(1)
    grad = prog.grad("objective")
    assert grad.kind == "grad" and grad.wrt == [0, 1, 2]
    for n in [1, 6]:
        args = point(rng, n)
        got = grad(*args)
        want = prog.objective_grad(*args)
        assert isinstance(got, tuple) and len(got) == 3
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got[0], fd(prog.objective, args, 0)[0], rtol=1e-6, atol=1e-6)
        one = prog.grad("objective", wrt="s")(*args)
        assert isinstance(one, float)
        np.testing.assert_allclose(one, want[2], rtol=1e-12)
        w_only = prog.grad("objective", wrt=0)(*args)
        assert isinstance(w_only, np.ndarray)
        np.testing.assert_allclose(w_only, want[0], rtol=1e-12, atol=1e-12)


def test_vjp_and_jvp(prog):
    rng = np.random.default_rng(2)
    n = 5
    w, s = rng.standard_normal(n), float(rng.standard_normal())
    yb = rng.standard_normal(n), float(rng.standard_normal())
    (y0, y1), (wb, sb) = prog.vjp("pair")(w, s, *yb)
    p0, p1 = prog.pair(w, s)
    np.testing.assert_allclose(y0, p0, rtol=1e-15)
    np.testing.assert_allclose(y1, p1, rtol=1e-15)
    hw, hs = prog.pair_vjp(w, s, *yb)
    np.testing.assert_allclose(wb, hw, rtol=1e-12)
    np.testing.assert_allclose(sb, hs, rtol=1e-12)
    wd, sd = rng.standard_normal(n), float(rng.standard_normal())
    (y0, y1), (d0, d1) = prog.jvp("pair")(w, s, wd, sd)
    h = 1e-6
    fp, fm = prog.pair(w + h * wd, s + h * sd), prog.pair(w - h * wd, s - h * sd)
    np.testing.assert_allclose(d0, (fp[0] - fm[0]) / (2 * h), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d1, (fp[1] - fm[1]) / (2 * h), rtol=1e-6, atol=1e-8)
    # The transposition identity ties the two.
    assert abs(np.dot(wb, wd) + sb * sd - (np.dot(yb[0], d0) + yb[1] * d1)) < 1e-10


def test_jacobian_and_hessian(prog):
    rng = np.random.default_rng(3)
    w, c = rng.standard_normal(4), 0.7
    jw, jc = prog.jacobian("expv")(w, c)
    assert jw.shape == (4, 4) and jc.shape == (4,)
    np.testing.assert_allclose(jw, fd(prog.expv, (w, c), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(jc, fd(prog.expv, (w, c), 1)[:, 0], rtol=1e-6, atol=1e-8)
    args = point(rng, 4)
    hess = prog.hessian("objective", wrt="w")(*args)
    np.testing.assert_allclose(hess, prog.objective_hessian(*args), rtol=1e-12, atol=1e-12)


def test_bad_requests(prog):
    with pytest.raises(KeyError, match="no entry point `nope`"):
        prog.grad("nope")
    with pytest.raises(ValueError, match="parameter 3 of `objective` has type i64"):
        prog.grad("objective", wrt="k")
    with pytest.raises(ValueError, match="no parameter named `q`"):
        prog.grad("objective", wrt=["w", "q"])
    with pytest.raises(ValueError, match="needs one f32 or f64 scalar result"):
        prog.grad("pair")
    with pytest.raises(ValueError, match="takes one parameter position, not 3"):
        prog.hessian("objective")
    with pytest.raises(TypeError, match="takes 4 argument"):
        prog.grad("objective")(np.ones(2))


def test_derivatives_are_cached(prog):
    a = prog.grad("objective", wrt=[0, 1, 2])
    b = prog.grad("objective")
    assert a.entry_point.name == b.entry_point.name
    assert "grad" in repr(a)
