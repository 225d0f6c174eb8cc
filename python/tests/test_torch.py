"""gradus.torch: an entry point as a torch.autograd.Function, its gradient against torch's own
gradient of the same function written with torch operations (to 1e-10, in f64). Skipped where
torch is not installed."""

import pathlib

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import gradus  # noqa: E402
import gradus.torch  # noqa: E402

DERIVE = pathlib.Path(__file__).resolve().parent / "derive.fut"


def objective_torch(w, x, s, k):
    return torch.sum(torch.sin(w * x) * s + w * w * x) + s * s * k


@pytest.fixture(scope="module", params=["interp", "c"])
def prog(request):
    return gradus.compile(DERIVE, backend=request.param)


def test_grad_equals_torchs_gradient(prog):
    rng = np.random.default_rng(7)
    w, x = (torch.tensor(rng.standard_normal(6), requires_grad=True) for _ in range(2))
    s = torch.tensor(0.9, dtype=torch.float64, requires_grad=True)
    f = gradus.torch.function(prog, "objective")
    y = f(w, x, s, 3)
    want_y = objective_torch(w, x, s, 3)
    assert abs(y.item() - want_y.item()) < 1e-10
    got = torch.autograd.grad(y, (w, x, s))
    want = torch.autograd.grad(want_y, (w, x, s))
    for g, h in zip(got, want):
        np.testing.assert_allclose(g.numpy(), h.numpy(), rtol=1e-10, atol=1e-10)


def test_several_results_and_a_module(prog):
    rng = np.random.default_rng(8)
    f = gradus.torch.function(prog, "pair")

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.tensor(rng.standard_normal(5)))

        def forward(self, s):
            a, b = f(self.w, s)
            return torch.sum(a * a) + b

    m = Model()
    s = torch.tensor(1.1, dtype=torch.float64)
    m(s).backward()
    w = m.w.detach().clone().requires_grad_(True)
    (torch.sum((w * w * s) ** 2) + torch.sum(torch.cos(w)) * s).backward()
    np.testing.assert_allclose(m.w.grad.numpy(), w.grad.numpy(), rtol=1e-10, atol=1e-10)


def test_double_backward_equals_torchs(prog):
    """A gradient taken with create_graph=True, differentiated again: Hessian-vector products
    and a gradient penalty, against torch's own (gradus's vjp of its vjp)."""
    rng = np.random.default_rng(9)
    w, x = (torch.tensor(rng.standard_normal(5), requires_grad=True) for _ in range(2))
    s = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    v = torch.tensor(rng.standard_normal(5))
    f = gradus.torch.function(prog, "objective")
    results = []
    for fun in (f, objective_torch):
        gw, gs = torch.autograd.grad(fun(w, x, s, 2), (w, s), create_graph=True)
        hvp = torch.autograd.grad(gw @ v + gs, (w, x, s), retain_graph=True)
        penalty = torch.autograd.grad(torch.sum(gw * gw) + gs * gs, (w, x, s))
        results.append([*hvp, *penalty])
    for g, h in zip(*results):
        np.testing.assert_allclose(g.numpy(), h.numpy(), rtol=1e-10, atol=1e-10)
    # Third order: the derivative of a Hessian-vector product's sum.
    thirds = []
    for fun in (f, objective_torch):
        (gw,) = torch.autograd.grad(fun(w, x, s, 2), (w,), create_graph=True)
        (hv,) = torch.autograd.grad(gw @ v, (w,), create_graph=True)
        thirds.append(torch.autograd.grad(hv.sum(), (w, s))[0])
    np.testing.assert_allclose(thirds[0].numpy(), thirds[1].numpy(), rtol=1e-10, atol=1e-10)


def test_under_torch_compile(prog):
    """A module calling the function, compiled with torch.compile: the same values and
    gradients as without."""
    f = gradus.torch.function(prog, "pair")
    w0 = torch.tensor(np.linspace(-1, 1, 4))

    def loss(w, s):
        a, b = f(w, s)
        return torch.sum(torch.tanh(a)) * b

    compiled = torch.compile(loss)
    s = torch.tensor(0.6, dtype=torch.float64)
    got_w = w0.clone().requires_grad_(True)
    want_w = w0.clone().requires_grad_(True)
    got, want = compiled(got_w, s), loss(want_w, s)
    got.backward()
    want.backward()
    assert abs(got.item() - want.item()) < 1e-12
    np.testing.assert_allclose(got_w.grad.numpy(), want_w.grad.numpy(), rtol=1e-12, atol=1e-12)
