/* A straightforward hand-written C version of the ADBench GMM objective
 * (benchmarks/README.md §GMM), the baseline the native backend's `objective` of
 * benchmarks/gmm.fut is compared with.
 *
 * It follows ADBench's C++ reference: per component the diagonal exp(q) and sum(q) are computed
 * once; per point and component the centred point is multiplied by the packed lower-triangular
 * Q (walking the packed entries column by column, §1.3) and the log-sum-exp over the components
 * subtracts the maximum.
 *
 * Usage: gmm FILE [RUNS [WARMUP]]   (ADBench text input; defaults 10 runs, 1 warm-up)
 * Prints the objective (17 significant digits) and the median, minimum and maximum time of one
 * call in microseconds. Only the call is timed, as `gradus bench` does.
 *
 * Build (the flags the native backend uses by default):
 *   cc -O3 -march=native -ffp-contract=off -std=gnu11 benchmarks/c/gmm.c -o gmm -lm
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct gmm {
  int d, k, n;
  double *alphas, *means, *icf, *x;
  double gamma;
  int m;
};

static void die(const char *what) {
  fprintf(stderr, "gmm: %s\n", what);
  exit(1);
}

static void *alloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) die("out of memory");
  return p;
}

/* Reads an ADBench GMM file; replicate-point mode (a single point for n) is recognised by the
 * number of tokens left after icf (§1.5). */
static struct gmm read_gmm(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) die("cannot open the input file");
  struct gmm g;
  if (fscanf(f, "%d %d %d", &g.d, &g.k, &g.n) != 3 || g.d <= 0 || g.k <= 0 || g.n <= 0)
    die("bad header (d K n)");
  size_t d = g.d, k = g.k, n = g.n, s = d * (d + 1) / 2;
  size_t cap = 1024, len = 0;
  double *tok = alloc(cap * sizeof *tok);
  double v;
  while (fscanf(f, "%lf", &v) == 1) {
    if (len == cap) {
      cap *= 2;
      tok = realloc(tok, cap * sizeof *tok);
      if (!tok) die("out of memory");
    }
    tok[len++] = v;
  }
  fclose(f);
  size_t params = k + k * d + k * s;
  int replicated;
  if (len == params + n * d + 2)
    replicated = 0;
  else if (len == params + d + 2)
    replicated = 1;
  else
    die("wrong number of values");
  g.alphas = alloc(k * sizeof(double));
  g.means = alloc(k * d * sizeof(double));
  g.icf = alloc(k * s * sizeof(double));
  g.x = alloc(n * d * sizeof(double));
  memcpy(g.alphas, tok, k * sizeof(double));
  memcpy(g.means, tok + k, k * d * sizeof(double));
  memcpy(g.icf, tok + k + k * d, k * s * sizeof(double));
  const double *pts = tok + params;
  for (size_t i = 0; i < n; i++)
    memcpy(g.x + i * d, pts + (replicated ? 0 : i * d), d * sizeof(double));
  size_t rest = params + (replicated ? d : n * d);
  g.gamma = tok[rest];
  g.m = (int)tok[rest + 1];
  free(tok);
  return g;
}

static double logsumexp(const double *v, int n) {
  double mx = v[0];
  for (int i = 1; i < n; i++)
    if (v[i] > mx) mx = v[i];
  double s = 0;
  for (int i = 0; i < n; i++) s += exp(v[i] - mx);
  return mx + log(s);
}

static double log_gamma_distrib(double a, int d) {
  double r = 0.25 * d * (d - 1) * log(M_PI);
  for (int j = 1; j <= d; j++) r += lgamma(a + 0.5 * (1 - j));
  return r;
}

/* The scratch arrays are allocated once, outside the timed calls. */
struct scratch {
  double *qdiags, *sum_qs, *xc, *qxc, *main_term;
};

static double objective(const struct gmm *g, struct scratch *w) {
  const int d = g->d, k = g->k, n = g->n, s = d * (d + 1) / 2;
  for (int c = 0; c < k; c++) {
    const double *q = g->icf + (size_t)c * s;
    double sq = 0;
    for (int j = 0; j < d; j++) {
      w->qdiags[c * d + j] = exp(q[j]);
      sq += q[j];
    }
    w->sum_qs[c] = sq;
  }
  double slse = 0;
  for (int i = 0; i < n; i++) {
    const double *xi = g->x + (size_t)i * d;
    for (int c = 0; c < k; c++) {
      const double *mu = g->means + (size_t)c * d;
      const double *l = g->icf + (size_t)c * s + d;
      for (int j = 0; j < d; j++) {
        w->xc[j] = xi[j] - mu[j];
        w->qxc[j] = w->qdiags[c * d + j] * w->xc[j];
      }
      int t = 0;
      for (int col = 0; col < d; col++)
        for (int r = col + 1; r < d; r++) w->qxc[r] += l[t++] * w->xc[col];
      double sqn = 0;
      for (int j = 0; j < d; j++) sqn += w->qxc[j] * w->qxc[j];
      w->main_term[c] = g->alphas[c] + w->sum_qs[c] - 0.5 * sqn;
    }
    slse += logsumexp(w->main_term, k);
  }
  double lse_alphas = logsumexp(g->alphas, k);
  double prior = 0;
  for (int c = 0; c < k; c++) {
    const double *q = g->icf + (size_t)c * s;
    double fro = 0;
    for (int j = 0; j < d; j++) fro += w->qdiags[c * d + j] * w->qdiags[c * d + j];
    for (int t = d; t < s; t++) fro += q[t] * q[t];
    prior += 0.5 * g->gamma * g->gamma * fro - g->m * w->sum_qs[c];
  }
  double nw = d + g->m + 1;
  double cst = nw * d * (log(g->gamma) - 0.5 * log(2.0)) - log_gamma_distrib(0.5 * nw, d);
  return slse - n * lse_alphas - n * d * 0.5 * log(2 * M_PI) + prior - k * cst;
}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 4) die("usage: gmm FILE [RUNS [WARMUP]]");
  int runs = argc > 2 ? atoi(argv[2]) : 10;
  int warmup = argc > 3 ? atoi(argv[3]) : 1;
  if (runs < 1 || warmup < 0) die("RUNS must be at least 1, WARMUP at least 0");
  struct gmm g = read_gmm(argv[1]);
  struct scratch w = {
      alloc((size_t)g.k * g.d * sizeof(double)), alloc(g.k * sizeof(double)),
      alloc(g.d * sizeof(double)), alloc(g.d * sizeof(double)), alloc(g.k * sizeof(double))};
  volatile double sink = 0;
  for (int r = 0; r < warmup; r++) sink = objective(&g, &w);
  double *times = alloc(runs * sizeof(double));
  double e = 0;
  for (int r = 0; r < runs; r++) {
    double t0 = now_us();
    e = objective(&g, &w);
    times[r] = now_us() - t0;
  }
  (void)sink;
  qsort(times, runs, sizeof(double), cmp);
  double median = runs % 2 ? times[runs / 2] : 0.5 * (times[runs / 2 - 1] + times[runs / 2]);
  printf("objective %.17g\n", e);
  printf("d=%d K=%d n=%d: median %.1f us, min %.1f us, max %.1f us (%d runs, %d warm-up)\n", g.d,
         g.k, g.n, median, times[0], times[runs - 1], runs, warmup);
  return 0;
}
