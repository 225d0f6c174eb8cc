//! The C text of the `gpu` backend's host side that does not depend on the device runtime,
//! compiled into the generated library after the common runtime ([`super::super::print`])
//! and the two device runtimes ([`super::cuda`], [`super::opencl`]).
//!
//! **Device runtimes.** Both are reached through one small table of operations
//! (`gr_dev_ops`: allocate, release, write, read, set a kernel argument, launch, finish,
//! enter a call), loaded with `dlopen` on the first call, so that building the library needs
//! neither CUDA nor OpenCL, and a machine without either gets a clear error from the call
//! instead of a library that does not load. The first call picks the runtime:
//! `GRADUS_GPU_RUNTIME=cuda` or `opencl` asks for one; otherwise CUDA when the driver finds
//! a device and NVRTC is found, else OpenCL; when neither works, the error says why for both.
//! The kernels are built once, for the library's lifetime.
//!
//! **Memory.** Every buffer the generated code allocates, and every array argument of a
//! call, has a *mirror*: its host range, a device buffer made on first use, and which copy is
//! current (host, device, both, or neither for a fresh buffer). A kernel launch makes the
//! device copies of the arrays it reads current (uploading only stale ones) and marks those it
//! writes as current on the device only; host code that reads or writes an array first makes
//! the host copy current (downloading only a stale one). So arrays stay on the device across
//! launches, within a call and across calls of a buffer the allocator recycles, and move only
//! when the host touches them. Mirrors are found by address (a sorted table), since the
//! generated code passes arrays as pointers into their buffers.
//!
//! **Errors.** A kernel records the first failing iteration of the call in a device-side
//! record, ordered by launch and then by iteration (the sequential order of the program);
//! the host reads it whenever it downloads data and at the end of the call, and a device
//! error takes precedence over a later host error. Calls into one library are serialised (one
//! lock): the mirror table and the device queue are shared.

/// The declarations both device runtimes share (before [`super::cuda::RUNTIME`] and
/// [`super::opencl::RUNTIME`]).
pub const DEVICE_INTERFACE: &str = r#"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* One device runtime. Buffers are 64-bit handles; each operation returns 0 or the runtime's
   error code. */
typedef struct {
  const char *name;
  int (*alloc)(uint64_t *buf, size_t bytes);
  void (*release)(uint64_t buf);
  int (*write)(uint64_t buf, size_t bytes, const void *src);
  int (*read)(uint64_t buf, size_t bytes, void *dst);
  int (*arg)(int kernel, int index, const void *value, size_t bytes);
  int (*launch)(int kernel, int64_t n, int64_t group); /* group 0: the runtime's choice */
  int (*finish)(void);
  int (*enter)(void);
} gr_dev_ops;

/* The kernels' source: a runtime's own prelude, then the common part. */
static GR_UNUSED char *gr_dev_source(const char *prelude) {
  size_t a = strlen(prelude), b = strlen(gr_gpu_kernels);
  char *s = (char *)malloc(a + b + 1);
  if (!s) return NULL;
  memcpy(s, prelude, a);
  memcpy(s + a, gr_gpu_kernels, b + 1);
  return s;
}

/* Opens the first of `names` that loads (NULL-terminated); `env`, when set, names the only
   candidate. */
static GR_UNUSED void *gr_dev_open(const char *env, const char *const *names) {
  const char *want = env ? getenv(env) : NULL;
  if (want && *want) return dlopen(want, RTLD_NOW | RTLD_LOCAL);
  for (int i = 0; names[i]; i++) {
    void *lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (lib) return lib;
  }
  return NULL;
}
"#;

/// The host side of the `gpu` backend (after the device runtimes, with `GR_GPU` defined).
pub const HOST_RUNTIME: &str = r#"
/* Which copy of a mirrored range is current. */
enum { GR_M_NONE = 0, GR_M_HOST = 1, GR_M_DEV = 2, GR_M_BOTH = 3 };

typedef struct gr_mirror {
  char *host;
  int64_t bytes;
  uint64_t dev;
  int64_t dev_bytes;
  int state;
} gr_mirror;

/* The error record kernels write (the same layout in the kernels' prelude). */
struct gr_kerr {
  int32_t failed;
  int32_t lock;
  int64_t seq;
  int64_t iter;
  int32_t site;
  int32_t nargs;
  int64_t args[32];
};

static pthread_mutex_t gr_gpu_mutex = PTHREAD_MUTEX_INITIALIZER;

static struct {
  int state; /* 0: not set up yet, 1: ready, -1: no device (see `why`) */
  char why[8192];
  char device[300];
  gr_dev_ops ops;
  uint64_t err;
  gr_mirror **reg;
  int64_t nreg, capreg;
  gr_mirror **inputs;
  int64_t ninputs, capinputs;
  int64_t seq;
} gr_gpu;

static GR_UNUSED void gr_gpu_lock(void) { pthread_mutex_lock(&gr_gpu_mutex); }
static GR_UNUSED void gr_gpu_unlock(void) { pthread_mutex_unlock(&gr_gpu_mutex); }

/* Records a failure of the device runtime in the call's context (error site -2; the message
   is read with gradus_gpu_message). */
static GR_UNUSED __attribute__((cold)) int gr_gpu_fail(struct gr_ctx *ctx, const char *what, int code) {
  if (code) snprintf(gr_gpu.why, sizeof gr_gpu.why, "%s (%s error %d)", what, gr_gpu.ops.name, code);
  else snprintf(gr_gpu.why, sizeof gr_gpu.why, "%s", what);
  ctx->failed = 1;
  ctx->site = -2;
  ctx->nargs = 0;
  ctx->fail_iter = INT64_MIN;
  return 1;
}

#if !defined(GR_PART) || GR_PART == 0
const char *gradus_gpu_message(void);
const char *gradus_gpu_message(void) { return gr_gpu.why; }
const char *gradus_gpu_device(void);
const char *gradus_gpu_device(void) { return gr_gpu.device; }
#endif

/* Parallel loops with fewer iterations than this that hold parallel loops run their
   iterations on the host, launching the inner loops (GRADUS_GPU_MIN_OUTER; default 0: the
   outer loop is the kernel). */
static GR_UNUSED int64_t gr_gpu_min_outer(void) {
  static int64_t v = -1;
  if (v < 0) {
    const char *s = getenv("GRADUS_GPU_MIN_OUTER");
    v = s && *s ? atoll(s) : 0;
    if (v < 0) v = 0;
  }
  return v;
}

/* The longest histogram that kernels copy into local memory (GRADUS_GPU_SUB_HIST, at most
   the local copies' length; 0 switches the copies off, to compare). */
static GR_UNUSED int64_t gr_gpu_sub_hist(int64_t most) {
  static int64_t v = -1;
  if (v < 0) {
    const char *s = getenv("GRADUS_GPU_SUB_HIST");
    v = s && *s ? atoll(s) : INT64_MAX;
    if (v < 0) v = 0;
  }
  return v < most ? v : most;
}

/* Picks the device runtime (see GRADUS_GPU_RUNTIME) and builds the kernels; once per
   library. */
static GR_UNUSED int gr_gpu_setup(void) {
  const char *want = getenv("GRADUS_GPU_RUNTIME");
  int cuda = !want || !*want || strcmp(want, "cuda") == 0;
  int opencl = !want || !*want || strcmp(want, "opencl") == 0;
  if (!cuda && !opencl) {
    snprintf(gr_gpu.why, sizeof gr_gpu.why, "GRADUS_GPU_RUNTIME=%s: expected `cuda` or `opencl`", want);
    return 1;
  }
  char cuda_why[2048] = "";
  if (cuda) {
    char name[256] = "";
    if (gr_cu_setup(&gr_gpu.ops, name, sizeof name, cuda_why, sizeof cuda_why) == 0) {
      snprintf(gr_gpu.device, sizeof gr_gpu.device, "CUDA: %s", name);
      return 0;
    }
    if (!opencl) {
      snprintf(gr_gpu.why, sizeof gr_gpu.why, "%s", cuda_why);
      return 1;
    }
  }
  char name[256] = "", cl_why[4096] = "";
  if (gr_cl_setup(&gr_gpu.ops, name, sizeof name, cl_why, sizeof cl_why) == 0) {
    snprintf(gr_gpu.device, sizeof gr_gpu.device, "OpenCL: %s", name);
    return 0;
  }
  if (cuda)
    snprintf(gr_gpu.why, sizeof gr_gpu.why, "no GPU runtime works here: CUDA: %s; OpenCL: %s", cuda_why, cl_why);
  else
    snprintf(gr_gpu.why, sizeof gr_gpu.why, "%s", cl_why);
  return 1;
}

/* The mirror whose range holds `p` (its end included, for empty views at the end). */
static GR_UNUSED gr_mirror *gr_gpu_find(const void *p) {
  int64_t lo = 0, hi = gr_gpu.nreg - 1, best = -1;
  while (lo <= hi) {
    int64_t mid = (lo + hi) / 2;
    if ((const char *)gr_gpu.reg[mid]->host <= (const char *)p) { best = mid; lo = mid + 1; }
    else hi = mid - 1;
  }
  if (best < 0) return NULL;
  gr_mirror *m = gr_gpu.reg[best];
  return (const char *)p <= m->host + m->bytes ? m : NULL;
}

static GR_UNUSED gr_mirror *gr_gpu_add(void *host, int64_t bytes, int state) {
  gr_mirror *m = (gr_mirror *)calloc(1, sizeof *m);
  if (!m) return NULL;
  if (gr_gpu.nreg == gr_gpu.capreg) {
    int64_t cap = gr_gpu.capreg ? 2 * gr_gpu.capreg : 256;
    gr_mirror **r = (gr_mirror **)realloc(gr_gpu.reg, (size_t)cap * sizeof *r);
    if (!r) { free(m); return NULL; }
    gr_gpu.reg = r;
    gr_gpu.capreg = cap;
  }
  m->host = (char *)host;
  m->bytes = bytes;
  m->state = state;
  int64_t at = gr_gpu.nreg;
  while (at > 0 && gr_gpu.reg[at - 1]->host > m->host) at--;
  memmove(gr_gpu.reg + at + 1, gr_gpu.reg + at, (size_t)(gr_gpu.nreg - at) * sizeof *gr_gpu.reg);
  gr_gpu.reg[at] = m;
  gr_gpu.nreg++;
  return m;
}

static GR_UNUSED void gr_gpu_drop(gr_mirror *m) {
  if (!m) return;
  for (int64_t k = 0; k < gr_gpu.nreg; k++) {
    if (gr_gpu.reg[k] == m) {
      memmove(gr_gpu.reg + k, gr_gpu.reg + k + 1, (size_t)(gr_gpu.nreg - k - 1) * sizeof *gr_gpu.reg);
      gr_gpu.nreg--;
      break;
    }
  }
  if (m->dev) gr_gpu.ops.release(m->dev);
  free(m);
}

/* Hooks of the allocator (see gr_alloc and gr_free): a buffer's mirror lives in its header. */
static GR_UNUSED void gr_gpu_block_new(void *b, int64_t capacity) {
  gr_mem *h = (gr_mem *)b;
  h->pad[0] = (int64_t)(intptr_t)gr_gpu_add((void *)(h + 1), capacity - (int64_t)sizeof(gr_mem), GR_M_NONE);
}
static GR_UNUSED void gr_gpu_block_reused(void *b) {
  gr_mirror *m = (gr_mirror *)(intptr_t)((gr_mem *)b)->pad[0];
  if (m) m->state = GR_M_NONE;
}
static GR_UNUSED void gr_gpu_block_filled(void *b) {
  gr_mirror *m = (gr_mirror *)(intptr_t)((gr_mem *)b)->pad[0];
  if (m) m->state = GR_M_HOST;
}
static GR_UNUSED void gr_gpu_block_gone(void *b) {
  gr_gpu_drop((gr_mirror *)(intptr_t)((gr_mem *)b)->pad[0]);
}

/* Reads the kernels' error record into the call's context: 1 when a kernel failed. */
static GR_UNUSED int gr_gpu_check(struct gr_ctx *ctx) {
  struct gr_kerr rec;
  int e = gr_gpu.ops.read(gr_gpu.err, sizeof rec, &rec);
  if (e != 0) return gr_gpu_fail(ctx, "cannot read from the device", e);
  if (!rec.failed) return 0;
  ctx->failed = 1;
  ctx->site = rec.site;
  ctx->nargs = rec.nargs;
  for (int32_t i = 0; i < rec.nargs && i < 32; i++) ctx->args[i] = rec.args[i];
  ctx->fail_iter = rec.iter;
  return 1;
}

/* Before host code reads (or, with `write`, writes) the array at `p`: the host copy current. */
static GR_UNUSED int gr_gpu_sync(struct gr_ctx *ctx, const void *p, int write) {
  gr_mirror *m = gr_gpu_find(p);
  if (!m) return 0;
  if (m->state == GR_M_DEV) {
    int e = gr_gpu.ops.read(m->dev, (size_t)m->bytes, m->host);
    if (e != 0) return gr_gpu_fail(ctx, "cannot read from the device", e);
    m->state = GR_M_BOTH;
    if (gr_gpu_check(ctx)) return 1;
  }
  if (write) m->state = GR_M_HOST;
  return 0;
}

/* Kernel argument `arg` (and `arg + 1`, the byte offset) of kernel `k`: the array at `p`,
   current on the device; with `write`, current there only after the launch. */
static GR_UNUSED int gr_gpu_arr(struct gr_ctx *ctx, int k, int arg, const void *p, int write) {
  gr_mirror *m = gr_gpu_find(p);
  static gr_mirror none;
  if (!m) {
    if (p) return gr_gpu_fail(ctx, "internal error: a kernel argument is not an array the device runtime knows", 0);
    m = &none;
  }
  if (!m->dev || m->dev_bytes < m->bytes) {
    if (m->dev) gr_gpu.ops.release(m->dev);
    m->dev = 0;
    int64_t bytes = m->bytes < 8 ? 8 : m->bytes;
    int e = gr_gpu.ops.alloc(&m->dev, (size_t)bytes);
    m->dev_bytes = e == 0 ? bytes : 0;
    if (e != 0) {
      m->dev = 0;
      char what[128];
      snprintf(what, sizeof what, "cannot allocate %lld bytes on the device", (long long)bytes);
      return gr_gpu_fail(ctx, what, e);
    }
    if (m->state == GR_M_DEV || m->state == GR_M_BOTH) m->state = GR_M_HOST;
  }
  if (m->state == GR_M_HOST && m->bytes > 0) {
    int e = gr_gpu.ops.write(m->dev, (size_t)m->bytes, m->host);
    if (e != 0) return gr_gpu_fail(ctx, "cannot write to the device", e);
    m->state = GR_M_BOTH;
  }
  if (write && m != &none) m->state = GR_M_DEV;
  int64_t off = m == &none ? 0 : (int64_t)((const char *)p - m->host);
  int e = gr_gpu.ops.arg(k, arg, &m->dev, sizeof m->dev);
  if (e == 0) e = gr_gpu.ops.arg(k, arg + 1, &off, sizeof off);
  if (e != 0) return gr_gpu_fail(ctx, "internal error: cannot set a kernel argument", e);
  return 0;
}

/* Bytes from `p` to the end of the array the device runtime knows it in (0 for none). */
static GR_UNUSED int64_t gr_gpu_span(const void *p) {
  gr_mirror *m = gr_gpu_find(p);
  return m ? (int64_t)(m->host + m->bytes - (const char *)p) : 0;
}

/* Kernel argument `arg` of kernel `k`: a scalar of `n` bytes at `v`. */
static GR_UNUSED int gr_gpu_val(struct gr_ctx *ctx, int k, int arg, const void *v, size_t n) {
  int e = gr_gpu.ops.arg(k, arg, v, n);
  if (e != 0) return gr_gpu_fail(ctx, "internal error: cannot set a kernel argument", e);
  return 0;
}

/* Launches kernel `k` over `n` iterations (one work-item each), after its arguments, in
   work-groups of `group` work-items (0: the runtime's choice). */
static GR_UNUSED int gr_gpu_run_in(struct gr_ctx *ctx, int k, int64_t n, int64_t group) {
  if (n <= 0) return 0;
  int64_t seq = ++gr_gpu.seq;
  int e = gr_gpu.ops.arg(k, 0, &gr_gpu.err, sizeof gr_gpu.err);
  if (e == 0) e = gr_gpu.ops.arg(k, 1, &seq, sizeof seq);
  if (e == 0) e = gr_gpu.ops.arg(k, 2, &n, sizeof n);
  if (e != 0) return gr_gpu_fail(ctx, "internal error: cannot set a kernel argument", e);
  e = gr_gpu.ops.launch(k, n, group);
  if (e != 0) return gr_gpu_fail(ctx, "cannot launch a kernel on the device", e);
  return 0;
}

/* Launches kernel `k` over `n` iterations in work-groups of the runtime's choice. */
static GR_UNUSED int gr_gpu_run(struct gr_ctx *ctx, int k, int64_t n) { return gr_gpu_run_in(ctx, k, n, 0); }

/* An array argument of the call: mirrored (host copy current) until the call ends. */
static GR_UNUSED int gr_gpu_input(struct gr_ctx *ctx, void *p, int64_t bytes) {
  if (!p) return 0;
  if (gr_gpu.ninputs == gr_gpu.capinputs) {
    int64_t cap = gr_gpu.capinputs ? 2 * gr_gpu.capinputs : 16;
    gr_mirror **r = (gr_mirror **)realloc(gr_gpu.inputs, (size_t)cap * sizeof *r);
    if (!r) return gr_gpu_fail(ctx, "cannot allocate host memory", 0);
    gr_gpu.inputs = r;
    gr_gpu.capinputs = cap;
  }
  gr_mirror *m = gr_gpu_add(p, bytes, GR_M_HOST);
  if (!m) return gr_gpu_fail(ctx, "cannot allocate host memory", 0);
  gr_gpu.inputs[gr_gpu.ninputs++] = m;
  return 0;
}

/* Starts a call: sets the device up on the first, takes the library's lock, clears the
   kernels' error record. */
static GR_UNUSED int gr_gpu_begin(struct gr_ctx *ctx) {
  gr_gpu_lock();
  if (gr_gpu.state == 0) {
    gr_gpu.state = -1;
    if (gr_gpu_setup() == 0) {
      int e = gr_gpu.ops.alloc(&gr_gpu.err, sizeof(struct gr_kerr));
      if (e == 0) gr_gpu.state = 1;
      else snprintf(gr_gpu.why, sizeof gr_gpu.why, "cannot allocate on the device (%s error %d)", gr_gpu.ops.name, e);
    }
  }
  if (gr_gpu.state < 0) {
    ctx->failed = 1;
    ctx->site = -2;
    ctx->nargs = 0;
    gr_gpu_unlock();
    return 1;
  }
  struct gr_kerr zero;
  memset(&zero, 0, sizeof zero);
  int e = gr_gpu.ops.enter();
  if (e == 0) e = gr_gpu.ops.write(gr_gpu.err, sizeof zero, &zero);
  if (e != 0) {
    gr_gpu_fail(ctx, "cannot write to the device", e);
    gr_gpu_unlock();
    return 1;
  }
  gr_gpu.seq = 0;
  gr_gpu.ninputs = 0;
  return 0;
}

/* Ends a call that returned `r`: a kernel's error wins over a later one of the host; the
   arguments' mirrors go. */
static GR_UNUSED int gr_gpu_end(struct gr_ctx *ctx, int r) {
  if (ctx->failed) r = 1;
  if (!(r && ctx->site == -2)) {
    int e = gr_gpu.ops.finish();
    if (e != 0) r = gr_gpu_fail(ctx, "the device failed", e);
    else if (gr_gpu_check(ctx)) r = 1;
  }
  for (int64_t k = 0; k < gr_gpu.ninputs; k++) gr_gpu_drop(gr_gpu.inputs[k]);
  gr_gpu.ninputs = 0;
  gr_gpu_unlock();
  return r;
}
"#;
