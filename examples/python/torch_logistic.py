"""Fit a logistic regression with a PyTorch optimiser, the loss being a gradus program:
``gradus.torch.function`` makes its `objective` entry point a function on tensors whose
``backward`` runs gradus's compiled reverse derivative. The weights are an ``nn.Module``'s
parameter, updated by ``torch.optim.Adam``. Each step's gradient is checked against
PyTorch's own gradient of the same loss written with torch operations.

    pip install ./python torch
    python examples/python/torch_logistic.py
"""

import pathlib

import numpy as np

import torch

import gradus
import gradus.torch

prog = gradus.compile(pathlib.Path(__file__).with_name("logistic.fut"))
objective = gradus.torch.function(prog, "objective")  # (xss, ys, penalty, w) -> f64


def objective_torch(xss, ys, penalty, w):
    z = xss @ w
    softplus = torch.nn.functional.softplus
    terms = ys * softplus(-z) + (1 - ys) * softplus(z)
    return terms.mean() + 0.5 * penalty * (w @ w)


class Logistic(torch.nn.Module):
    def __init__(self, features, loss):
        super().__init__()
        self.w = torch.nn.Parameter(torch.zeros(features, dtype=torch.float64))
        self.loss = loss

    def forward(self, xss, ys, penalty):
        return self.loss(xss, ys, penalty, self.w)


rng = np.random.default_rng(0)
samples, features = 2000, 10
true_w = rng.normal(size=features)
xss = torch.tensor(rng.normal(size=(samples, features)))
ys = torch.tensor((rng.random(samples) < 1 / (1 + np.exp(-xss.numpy() @ true_w))) * 1.0)
penalty = 1e-3

model = Logistic(features, objective)
optimiser = torch.optim.Adam(model.parameters(), lr=0.05)
for step in range(200):
    optimiser.zero_grad()
    loss = model(xss, ys, penalty)
    loss.backward()
    w = model.w.detach().clone().requires_grad_(True)
    objective_torch(xss, ys, penalty, w).backward()
    assert torch.allclose(model.w.grad, w.grad, rtol=1e-10, atol=1e-12), step
    optimiser.step()
    if step % 50 == 0:
        print(f"step {step:3d}: loss {loss.item():.6f}")

print(f"final loss {model(xss, ys, penalty).item():.6f}")
print("weights    ", np.round(model.w.detach().numpy(), 2))
print("true       ", np.round(true_w, 2))
print("every gradient agreed with PyTorch's own to 1e-10")
