"""Forward-mode dual numbers (nested for second derivatives), written here independently of
gradus, and the helpers the generators of expected values share: a gradient is one forward
pass per input element; a Hessian-vector product one pass of duals of duals."""

import math


class D:
    def __init__(self, v, t=0.0):
        self.v, self.t = v, t

    def __add__(self, o):
        o = lift(o)
        return D(self.v + o.v, self.t + o.t)

    __radd__ = __add__

    def __sub__(self, o):
        o = lift(o)
        return D(self.v - o.v, self.t - o.t)

    def __rsub__(self, o):
        return lift(o) - self

    def __mul__(self, o):
        o = lift(o)
        return D(self.v * o.v, self.v * o.t + self.t * o.v)

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = lift(o)
        return D(self.v / o.v, (self.t * o.v - self.v * o.t) / (o.v * o.v))

    def __rtruediv__(self, o):
        return lift(o) / self

    def __neg__(self):
        return D(-self.v, -self.t)

    def __lt__(self, o):
        return real(self) < real(o)

    def __le__(self, o):
        return real(self) <= real(o)

    def __gt__(self, o):
        return real(self) > real(o)

    def __ge__(self, o):
        return real(self) >= real(o)


def lift(x):
    return x if isinstance(x, D) else D(x, 0.0)


def real(x):
    while isinstance(x, D):
        x = x.v
    return x


def exp(x):
    if isinstance(x, D):
        e = exp(x.v)
        return D(e, x.t * e)
    return math.exp(x)


def tanh(x):
    if isinstance(x, D):
        th = tanh(x.v)
        return D(th, x.t * (1 - th * th))
    return math.tanh(x)


def cbrt(x):
    if isinstance(x, D):
        c = cbrt(x.v)
        return D(c, x.t / (3 * c * c))
    return math.copysign(abs(x) ** (1.0 / 3.0), x)


def tan(x):
    return x.t if isinstance(x, D) else 0.0


def hist(op, ne, k, dest, idx, vals):
    out = list(dest) if dest is not None else [ne] * k
    for i, v in zip(idx, vals):
        if 0 <= i < k:
            out[i] = op(out[i], v)
    return out


def grad(f, xs):
    """Gradient of the scalar f at the list of lists xs (one list per argument)."""
    out = []
    for a, arg in enumerate(xs):
        g = []
        for j in range(len(arg)):
            args = [[D(x, 1.0 if (b == a and k == j) else 0.0) for k, x in enumerate(y)]
                    for b, y in enumerate(xs)]
            g.append(tan(f(*args)))
        out.append(g)
    return out


def hvp(f, x, dx):
    """H(f)(x) dx for a scalar f of one list argument: tangents of the gradient."""
    out = []
    for j in range(len(x)):
        args = [D(D(xi, 1.0 if k == j else 0.0), D(dx[k], 0.0)) for k, xi in enumerate(x)]
        out.append(tan(f(args)).t)
    return out


def cmul(a, b):
    return (a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0])


def mm(a, b):
    return [a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
            a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]]


def fmt(xs):
    if isinstance(xs, list):
        return "[" + ", ".join(fmt(x) for x in xs) + "]"
    return repr(float(xs))


def dot(ys, bars):
    return sum(y * b for y, b in zip(ys, bars))


