"""JAX and PyTorch on the GPU at the sizes benchmarks/gpu/run.sh times gradus at: GMM (10k
points, d 32, K 200), k-means (494019 points, d 35, k 5) and BA (ba10's sizes: 1197 cameras,
126327 points, 563734 observations), objective and derivative, in float64, on random data of
those shapes (times do not depend on the values). Medians of timed runs after a warm-up, each
run synchronised. Prints one line per (tool, problem, what): the median in milliseconds.

Usage: python3 benchmarks/gpu/peers.py [--runs N] [--only jax|torch] [--small]
(`--small`: a hundredth of the points and observations, to check the script on a CPU.)
"""

import argparse
import statistics
import time

import numpy as np


def median_ms(fn, runs):
    fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


SCALE = 1


def gmm_data(rng, n=10000, d=32, k=200):
    n //= SCALE
    s = d * (d + 1) // 2
    return (rng.standard_normal(k), rng.standard_normal((k, d)),
            0.1 * rng.standard_normal((k, s)), rng.standard_normal((n, d)))


def kmeans_data(rng, n=494019, d=35, k=5):
    n //= SCALE
    return rng.standard_normal((n, d)), rng.standard_normal((k, d))


def ba_data(rng, n=1197, m=126327, p=563734):
    m, p = m // SCALE, p // SCALE
    cams = rng.standard_normal((n, 11)) * 0.1
    cams[:, 6] = 1.0 + rng.random(n)  # focal length
    pts = rng.standard_normal((m, 3))
    pts[:, 2] += 10.0  # in front of the cameras
    w = rng.random(p)
    obs = np.stack([rng.integers(0, n, p), rng.integers(0, m, p)], axis=1)
    feats = rng.standard_normal((p, 2))
    return cams, pts, w, obs, feats


def run_jax(runs, rng):
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    dev = jax.devices()[0]
    print(f"jax {jax.__version__} on {dev}", flush=True)

    def lse(x, axis=-1):
        mx = jnp.max(x, axis=axis, keepdims=True)
        return jnp.squeeze(mx, axis) + jnp.log(jnp.sum(jnp.exp(x - mx), axis=axis))

    def gmm_objective(alphas, means, icf, x):
        k, d = means.shape
        diag = icf[:, :d]
        rows, cols = np.tril_indices(d, -1)
        q = jnp.zeros((k, d, d)).at[:, rows, cols].set(icf[:, d:])
        q = q + jax.vmap(jnp.diag)(jnp.exp(diag))
        xc = x[:, None, :] - means[None, :, :]  # n k d
        qxc = jnp.einsum("kij,nkj->nki", q, xc)
        main = alphas[None, :] + jnp.sum(diag, axis=1)[None, :] - 0.5 * jnp.sum(qxc**2, axis=2)
        n = x.shape[0]
        prior = 0.5 * jnp.sum(jnp.exp(diag) ** 2) + 0.5 * jnp.sum(icf[:, d:] ** 2) - jnp.sum(diag)
        return jnp.sum(lse(main)) - n * lse(alphas) + prior

    def kmeans_objective(points, centres):
        d2 = jnp.sum((points[:, None, :] - centres[None, :, :]) ** 2, axis=2)
        return jnp.sum(jnp.min(d2, axis=1))

    def ba_residual(cam, x, w, feat):
        rot, centre, f, x0, kappa = cam[:3], cam[3:6], cam[6], cam[7:9], cam[9:11]
        y = x - centre
        theta = jnp.sqrt(jnp.sum(rot**2))
        axis = rot / theta
        c, s = jnp.cos(theta), jnp.sin(theta)
        y = y * c + jnp.cross(axis, y) * s + axis * jnp.dot(axis, y) * (1 - c)
        p = y[:2] / y[2]
        r2 = jnp.sum(p**2)
        p = p * (1 + kappa[0] * r2 + kappa[1] * r2 * r2)
        return w * (p * f + x0 - feat)

    def ba_all(cams, pts, w, obs, feats):
        return jax.vmap(ba_residual)(cams[obs[:, 0]], pts[obs[:, 1]], w, feats)

    def ba_jacobian_blocks(cams, pts, w, obs, feats):
        jac = jax.jacfwd(ba_residual, argnums=(0, 1, 2))
        return jax.vmap(jac)(cams[obs[:, 0]], pts[obs[:, 1]], w, feats)

    def put(*xs):
        return [jax.device_put(jnp.asarray(a), dev) for a in xs]

    def timed(name, what, f, args):
        def once():
            jax.block_until_ready(f(*args))

        print(f"jax {name} {what} {median_ms(once, runs):.3f} ms", flush=True)

    g = put(*gmm_data(rng))
    timed("gmm_d32_K200", "objective", jax.jit(gmm_objective), g)
    timed("gmm_d32_K200", "gradient", jax.jit(jax.grad(gmm_objective, argnums=(0, 1, 2))), g)
    km = put(*kmeans_data(rng))
    timed("kmeans_5_494019_35", "objective", jax.jit(kmeans_objective), km)
    timed("kmeans_5_494019_35", "gradient", jax.jit(jax.grad(kmeans_objective, argnums=1)), km)
    ba = put(*ba_data(rng))
    timed("ba10", "objective", jax.jit(ba_all), ba)
    timed("ba10", "jacobian", jax.jit(ba_jacobian_blocks), ba)


def run_torch(runs, rng):
    import torch

    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    print(f"torch {torch.__version__} on {dev}", flush=True)

    def t(a, grad=False):
        return torch.tensor(a, dtype=torch.float64 if a.dtype != np.int64 else torch.int64,
                            device=dev, requires_grad=grad)

    def gmm_objective(alphas, means, icf, x):
        k, d = means.shape
        diag = icf[:, :d]
        rows, cols = torch.tril_indices(d, d, -1, device=dev)
        q = torch.zeros((k, d, d), dtype=torch.float64, device=dev)
        q[:, rows, cols] = icf[:, d:]
        q = q + torch.diag_embed(torch.exp(diag))
        xc = x[:, None, :] - means[None, :, :]
        qxc = torch.einsum("kij,nkj->nki", q, xc)
        main = alphas[None, :] + diag.sum(1)[None, :] - 0.5 * (qxc**2).sum(2)
        prior = 0.5 * (torch.exp(diag) ** 2).sum() + 0.5 * (icf[:, d:] ** 2).sum() - diag.sum()
        return torch.logsumexp(main, 1).sum() - x.shape[0] * torch.logsumexp(alphas, 0) + prior

    def kmeans_objective(points, centres):
        d2 = ((points[:, None, :] - centres[None, :, :]) ** 2).sum(2)
        return d2.min(1).values.sum()

    def ba_residual(cam, x, w, feat):
        rot, centre, f, x0, kappa = cam[:3], cam[3:6], cam[6], cam[7:9], cam[9:11]
        y = x - centre
        theta = torch.sqrt((rot**2).sum())
        axis = rot / theta
        c, s = torch.cos(theta), torch.sin(theta)
        y = y * c + torch.linalg.cross(axis, y) * s + axis * (axis * y).sum() * (1 - c)
        p = y[:2] / y[2]
        r2 = (p**2).sum()
        p = p * (1 + kappa[0] * r2 + kappa[1] * r2 * r2)
        return w * (p * f + x0 - feat)

    def sync(f):
        def once():
            f()
            if dev.type == "cuda":
                torch.cuda.synchronize()

        return once

    def report(name, what, f):
        print(f"torch {name} {what} {median_ms(sync(f), runs):.3f} ms", flush=True)

    alphas, means, icf, x = gmm_data(rng)
    ga, gm, gi, gx = t(alphas, True), t(means, True), t(icf, True), t(x)
    report("gmm_d32_K200", "objective", lambda: gmm_objective(ga, gm, gi, gx))
    report("gmm_d32_K200", "gradient",
           lambda: torch.autograd.grad(gmm_objective(ga, gm, gi, gx), (ga, gm, gi)))
    points, centres = kmeans_data(rng)
    kp, kc = t(points), t(centres, True)
    report("kmeans_5_494019_35", "objective", lambda: kmeans_objective(kp, kc))
    report("kmeans_5_494019_35", "gradient",
           lambda: torch.autograd.grad(kmeans_objective(kp, kc), kc))
    cams, pts, w, obs, feats = (t(a) for a in ba_data(rng))
    cam_rows, pt_rows = cams[obs[:, 0]], pts[obs[:, 1]]
    ba_all = torch.func.vmap(ba_residual)
    ba_jac = torch.func.vmap(torch.func.jacfwd(ba_residual, argnums=(0, 1, 2)))
    report("ba10", "objective", lambda: ba_all(cams[obs[:, 0]], pts[obs[:, 1]], w, feats))
    report("ba10", "jacobian", lambda: ba_jac(cam_rows, pt_rows, w, feats))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--only", choices=["jax", "torch"])
    ap.add_argument("--small", action="store_true")
    args = ap.parse_args()
    global SCALE
    SCALE = 100 if args.small else 1
    for name, run in (("jax", run_jax), ("torch", run_torch)):
        if args.only and args.only != name:
            continue
        try:
            run(args.runs, np.random.default_rng(1))
        except Exception as e:  # one framework missing or failing leaves the other
            print(f"{name}: failed: {type(e).__name__}: {e}", flush=True)


if __name__ == "__main__":
    main()
