"""Sparse Jacobians and Hessians on demand (``prog.sparse_jacobian``, ``sparse_hessian``):
the same matrix as the dense ``jacobian`` and ``hessian``, as a ``scipy.sparse.csr_matrix``,
with the pattern kept across points."""

import numpy as np
import pytest
import scipy.sparse

import gradus

SOURCE = """
entry residual [n][k] (x: [n]f64) (a: [k]i64) (b: [k]i64) : [k]f64 =
  map2 (\\i j -> if x[i] > 0 then x[i] * x[j] else f64.sin x[j]) a b
entry energy [n] (x: [n]f64) : f64 =
  f64.sum (map2 (\\u v -> (u - v) ** 4) x (rotate 1 x)) + f64.sum (map f64.exp x)
"""


@pytest.fixture(scope="module", params=["interp", "c"])
def prog(request):
    return gradus.compile_source(SOURCE, name="sparse.fut", backend=request.param)


def test_sparse_jacobian_is_the_dense_one_and_keeps_its_pattern(prog):
    rng = np.random.default_rng(3)
    a = np.array([0, 3, 5, 2, 7], dtype=np.int64)
    b = np.array([1, 1, 6, 7, 0], dtype=np.int64)
    jac = prog.sparse_jacobian("residual")
    assert jac.kind == "sparse_jacobian" and jac.wrt == 0
    dense = prog.jacobian("residual", wrt=0)
    first = None
    for _ in range(4):
        x = rng.standard_normal(8)
        m = jac(x, a, b)
        assert isinstance(m, scipy.sparse.csr_matrix) and m.shape == (5, 8)
        np.testing.assert_allclose(m.toarray(), dense(x, a, b), rtol=1e-12, atol=1e-14)
        plan = jac.plan(x, a, b)
        # Both branches are in the pattern, whichever this point takes.
        assert plan["nnz"] == 10 and plan["products"] in ("columns", "rows")
        first = first or plan
        assert plan["trace_seconds"] == first["trace_seconds"]


def test_sparse_hessian_is_the_dense_one(prog):
    x = np.random.default_rng(4).standard_normal(7)
    hess = prog.sparse_hessian("energy", wrt="x")
    m = hess(x)
    np.testing.assert_allclose(m.toarray(), prog.hessian("energy")(x), rtol=1e-11, atol=1e-12)
    plan = hess.plan(x)
    assert plan["products"] == "star" and plan["nnz"] == 21 and plan["colours"] <= 4


def test_bad_requests_are_value_errors(prog):
    with pytest.raises(ValueError, match="scalar result"):
        prog.sparse_hessian("residual")
    with pytest.raises(ValueError, match="no parameter named"):
        prog.sparse_jacobian("residual", wrt="y")
    with pytest.raises(KeyError):
        prog.sparse_jacobian("nope")
    with pytest.raises(TypeError):
        prog.sparse_jacobian("residual")(np.zeros(3))
