//! The C text of the `gpu` backend's run time: the host side, compiled into the generated
//! library after the common runtime ([`super::print`]), and the prelude of the kernels, which
//! the device's compiler builds when the library is first called.
//!
//! **Host side.** OpenCL is reached through the ICD loader (`libOpenCL.so.1`), opened with
//! `dlopen` on the first call: building the library needs no OpenCL headers or libraries, and
//! a machine without OpenCL gets a clear error from the call instead of a library that does
//! not load. The first call picks a device (the first GPU of any platform, else the first
//! device of any kind, such as POCL's CPU device; `GRADUS_OPENCL_DEVICE=N` picks the N-th
//! device of all platforms), builds the kernels and keeps them for the library's lifetime.
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

/// The host side of the `gpu` backend (after the common runtime, with `GR_GPU` defined).
pub const HOST_RUNTIME: &str = r#"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

typedef int32_t gr_cl_int;
typedef uint32_t gr_cl_uint;
typedef void *gr_cl_obj;
#define GR_CL_FNS(X) \
  X(gr_cl_int, GetPlatformIDs, (gr_cl_uint, gr_cl_obj *, gr_cl_uint *)) \
  X(gr_cl_int, GetDeviceIDs, (gr_cl_obj, uint64_t, gr_cl_uint, gr_cl_obj *, gr_cl_uint *)) \
  X(gr_cl_int, GetDeviceInfo, (gr_cl_obj, gr_cl_uint, size_t, void *, size_t *)) \
  X(gr_cl_obj, CreateContext, (const intptr_t *, gr_cl_uint, const gr_cl_obj *, void *, void *, gr_cl_int *)) \
  X(gr_cl_int, ReleaseContext, (gr_cl_obj)) \
  X(gr_cl_obj, CreateCommandQueue, (gr_cl_obj, gr_cl_obj, uint64_t, gr_cl_int *)) \
  X(gr_cl_obj, CreateProgramWithSource, (gr_cl_obj, gr_cl_uint, const char **, const size_t *, gr_cl_int *)) \
  X(gr_cl_int, BuildProgram, (gr_cl_obj, gr_cl_uint, const gr_cl_obj *, const char *, void *, void *)) \
  X(gr_cl_int, GetProgramBuildInfo, (gr_cl_obj, gr_cl_obj, gr_cl_uint, size_t, void *, size_t *)) \
  X(gr_cl_obj, CreateKernel, (gr_cl_obj, const char *, gr_cl_int *)) \
  X(gr_cl_obj, CreateBuffer, (gr_cl_obj, uint64_t, size_t, void *, gr_cl_int *)) \
  X(gr_cl_int, ReleaseMemObject, (gr_cl_obj)) \
  X(gr_cl_int, EnqueueWriteBuffer, (gr_cl_obj, gr_cl_obj, gr_cl_uint, size_t, size_t, const void *, gr_cl_uint, const void *, void *)) \
  X(gr_cl_int, EnqueueReadBuffer, (gr_cl_obj, gr_cl_obj, gr_cl_uint, size_t, size_t, void *, gr_cl_uint, const void *, void *)) \
  X(gr_cl_int, SetKernelArg, (gr_cl_obj, gr_cl_uint, size_t, const void *)) \
  X(gr_cl_int, EnqueueNDRangeKernel, (gr_cl_obj, gr_cl_obj, gr_cl_uint, const size_t *, const size_t *, const size_t *, gr_cl_uint, const void *, void *)) \
  X(gr_cl_int, Finish, (gr_cl_obj))

typedef struct {
#define GR_CL_FIELD(r, n, a) r (*n) a;
  GR_CL_FNS(GR_CL_FIELD)
#undef GR_CL_FIELD
} gr_cl_api;

#define GR_CL_DEVICE_TYPE_GPU ((uint64_t)1 << 2)
#define GR_CL_DEVICE_TYPE_ALL ((uint64_t)0xFFFFFFFF)
#define GR_CL_DEVICE_NAME 0x102B
#define GR_CL_DEVICE_MAX_WORK_GROUP_SIZE 0x1004
#define GR_CL_PROGRAM_BUILD_LOG 0x1183
#define GR_CL_MEM_READ_WRITE ((uint64_t)1)

/* Which copy of a mirrored range is current. */
enum { GR_M_NONE = 0, GR_M_HOST = 1, GR_M_DEV = 2, GR_M_BOTH = 3 };

typedef struct gr_mirror {
  char *host;
  int64_t bytes;
  gr_cl_obj dev;
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
  char why[4096];
  char device[256];
  gr_cl_api cl;
  gr_cl_obj ctx, queue, dev, prog, err;
  gr_cl_obj kernels[GR_GPU_KERNELS + 1];
  size_t group;
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
  if (code) snprintf(gr_gpu.why, sizeof gr_gpu.why, "%s (OpenCL error %d)", what, code);
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

static GR_UNUSED int gr_gpu_pick_device(void) {
  gr_cl_obj plats[16];
  gr_cl_uint np = 0;
  if (gr_gpu.cl.GetPlatformIDs(16, plats, &np) != 0 || np == 0) {
    snprintf(gr_gpu.why, sizeof gr_gpu.why, "no OpenCL platform found (install an OpenCL driver: the GPU vendor's, or pocl-opencl-icd to run kernels on the CPU)");
    return 1;
  }
  if (np > 16) np = 16;
  const char *want = getenv("GRADUS_OPENCL_DEVICE");
  int64_t wanted = want && *want ? atoll(want) : -1, seen = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (gr_cl_uint p = 0; p < np; p++) {
      gr_cl_obj devs[16];
      gr_cl_uint nd = 0;
      uint64_t type = pass == 0 && wanted < 0 ? GR_CL_DEVICE_TYPE_GPU : GR_CL_DEVICE_TYPE_ALL;
      if (gr_gpu.cl.GetDeviceIDs(plats[p], type, 16, devs, &nd) != 0) continue;
      if (nd > 16) nd = 16;
      for (gr_cl_uint d = 0; d < nd; d++, seen++) {
        if (wanted >= 0 && seen != wanted) continue;
        gr_gpu.dev = devs[d];
        return 0;
      }
    }
    if (wanted >= 0) break;
  }
  if (wanted >= 0)
    snprintf(gr_gpu.why, sizeof gr_gpu.why, "GRADUS_OPENCL_DEVICE=%s: there are only %lld OpenCL devices", want, (long long)seen);
  else
    snprintf(gr_gpu.why, sizeof gr_gpu.why, "the OpenCL platforms have no devices");
  return 1;
}

/* The context and the kernels' error record. A context made while another library of the
   process makes its own can come out without its device's limits (POCL), which the first
   allocation shows: such a context is made again. */
static GR_UNUSED int gr_gpu_context(void) {
  gr_cl_int e = 0;
  for (int attempt = 0; attempt < 50; attempt++) {
    gr_gpu.ctx = gr_gpu.cl.CreateContext(NULL, 1, &gr_gpu.dev, NULL, NULL, &e);
    if (!gr_gpu.ctx) { snprintf(gr_gpu.why, sizeof gr_gpu.why, "cannot create an OpenCL context (error %d)", e); return 1; }
    gr_gpu.err = gr_gpu.cl.CreateBuffer(gr_gpu.ctx, GR_CL_MEM_READ_WRITE, sizeof(struct gr_kerr), NULL, &e);
    if (gr_gpu.err) return 0;
    gr_gpu.cl.ReleaseContext(gr_gpu.ctx);
    struct timespec pause = {0, 10 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  snprintf(gr_gpu.why, sizeof gr_gpu.why, "cannot allocate on the OpenCL device (error %d)", e);
  return 1;
}

static GR_UNUSED int gr_gpu_build(void) {
  gr_cl_int e = 0;
  if (gr_gpu_context()) return 1;
  gr_gpu.queue = gr_gpu.cl.CreateCommandQueue(gr_gpu.ctx, gr_gpu.dev, 0, &e);
  if (!gr_gpu.queue) { snprintf(gr_gpu.why, sizeof gr_gpu.why, "cannot create an OpenCL queue (error %d)", e); return 1; }
  const char *src = gr_gpu_source;
  gr_gpu.prog = gr_gpu.cl.CreateProgramWithSource(gr_gpu.ctx, 1, &src, NULL, &e);
  if (!gr_gpu.prog) { snprintf(gr_gpu.why, sizeof gr_gpu.why, "cannot create the OpenCL program (error %d)", e); return 1; }
  e = gr_gpu.cl.BuildProgram(gr_gpu.prog, 1, &gr_gpu.dev, "-cl-std=CL1.2 -w", NULL, NULL);
  if (e != 0) {
    int n = snprintf(gr_gpu.why, sizeof gr_gpu.why, "internal error: the OpenCL compiler rejected the generated kernels (error %d):\n", e);
    size_t len = 0;
    if (n > 0 && (size_t)n < sizeof gr_gpu.why)
      gr_gpu.cl.GetProgramBuildInfo(gr_gpu.prog, gr_gpu.dev, GR_CL_PROGRAM_BUILD_LOG, sizeof gr_gpu.why - (size_t)n - 1, gr_gpu.why + n, &len);
    return 1;
  }
  for (int k = 0; k < GR_GPU_KERNELS; k++) {
    char name[32];
    snprintf(name, sizeof name, "gr_k%d", k);
    gr_gpu.kernels[k] = gr_gpu.cl.CreateKernel(gr_gpu.prog, name, &e);
    if (!gr_gpu.kernels[k]) { snprintf(gr_gpu.why, sizeof gr_gpu.why, "internal error: no kernel %s (error %d)", name, e); return 1; }
  }
  size_t maxg = 0;
  gr_gpu.cl.GetDeviceInfo(gr_gpu.dev, GR_CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof maxg, &maxg, NULL);
  gr_gpu.group = maxg >= 256 || maxg == 0 ? 256 : maxg;
  gr_gpu.cl.GetDeviceInfo(gr_gpu.dev, GR_CL_DEVICE_NAME, sizeof gr_gpu.device - 1, gr_gpu.device, NULL);
  return 0;
}

/* Opens OpenCL, picks the device and builds the kernels; once per library. */
static GR_UNUSED int gr_gpu_setup(void) {
  void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) lib = dlopen("libOpenCL.so", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    snprintf(gr_gpu.why, sizeof gr_gpu.why, "the gpu backend needs OpenCL, and no OpenCL loader (libOpenCL.so.1) was found: install one (Debian: ocl-icd-libopencl1) and a driver (the GPU vendor's, or pocl-opencl-icd for the CPU)");
    return 1;
  }
#define GR_CL_LOAD(r, n, a) \
  *(void **)&gr_gpu.cl.n = dlsym(lib, "cl" #n); \
  if (!gr_gpu.cl.n) { snprintf(gr_gpu.why, sizeof gr_gpu.why, "the OpenCL loader has no cl%s", #n); return 1; }
  GR_CL_FNS(GR_CL_LOAD)
#undef GR_CL_LOAD
  if (gr_gpu_pick_device()) return 1;
  return gr_gpu_build();
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
  if (m->dev) gr_gpu.cl.ReleaseMemObject(m->dev);
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
  gr_cl_int e = gr_gpu.cl.EnqueueReadBuffer(gr_gpu.queue, gr_gpu.err, 1, 0, sizeof rec, &rec, 0, NULL, NULL);
  if (e != 0) return gr_gpu_fail(ctx, "cannot read from the OpenCL device", e);
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
    gr_cl_int e = gr_gpu.cl.EnqueueReadBuffer(gr_gpu.queue, m->dev, 1, 0, (size_t)m->bytes, m->host, 0, NULL, NULL);
    if (e != 0) return gr_gpu_fail(ctx, "cannot read from the OpenCL device", e);
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
    gr_cl_int e = 0;
    if (m->dev) gr_gpu.cl.ReleaseMemObject(m->dev);
    int64_t bytes = m->bytes < 8 ? 8 : m->bytes;
    m->dev = gr_gpu.cl.CreateBuffer(gr_gpu.ctx, GR_CL_MEM_READ_WRITE, (size_t)bytes, NULL, &e);
    m->dev_bytes = m->dev ? bytes : 0;
    if (!m->dev) {
      char what[128];
      snprintf(what, sizeof what, "cannot allocate %lld bytes on the OpenCL device", (long long)bytes);
      return gr_gpu_fail(ctx, what, e);
    }
    if (m->state == GR_M_DEV || m->state == GR_M_BOTH) m->state = GR_M_HOST;
  }
  if (m->state == GR_M_HOST && m->bytes > 0) {
    gr_cl_int e = gr_gpu.cl.EnqueueWriteBuffer(gr_gpu.queue, m->dev, 1, 0, (size_t)m->bytes, m->host, 0, NULL, NULL);
    if (e != 0) return gr_gpu_fail(ctx, "cannot write to the OpenCL device", e);
    m->state = GR_M_BOTH;
  }
  if (write && m != &none) m->state = GR_M_DEV;
  int64_t off = m == &none ? 0 : (int64_t)((const char *)p - m->host);
  gr_cl_int e = gr_gpu.cl.SetKernelArg(gr_gpu.kernels[k], (gr_cl_uint)arg, sizeof(gr_cl_obj), &m->dev);
  if (e == 0) e = gr_gpu.cl.SetKernelArg(gr_gpu.kernels[k], (gr_cl_uint)arg + 1, sizeof off, &off);
  if (e != 0) return gr_gpu_fail(ctx, "internal error: cannot set a kernel argument", e);
  return 0;
}

/* Kernel argument `arg` of kernel `k`: a scalar of `n` bytes at `v`. */
static GR_UNUSED int gr_gpu_val(struct gr_ctx *ctx, int k, int arg, const void *v, size_t n) {
  gr_cl_int e = gr_gpu.cl.SetKernelArg(gr_gpu.kernels[k], (gr_cl_uint)arg, n, v);
  if (e != 0) return gr_gpu_fail(ctx, "internal error: cannot set a kernel argument", e);
  return 0;
}

/* Launches kernel `k` over `n` iterations (one work-item each), after its arguments. */
static GR_UNUSED int gr_gpu_run(struct gr_ctx *ctx, int k, int64_t n) {
  if (n <= 0) return 0;
  int64_t seq = ++gr_gpu.seq;
  gr_cl_obj kk = gr_gpu.kernels[k];
  gr_cl_int e = gr_gpu.cl.SetKernelArg(kk, 0, sizeof(gr_cl_obj), &gr_gpu.err);
  if (e == 0) e = gr_gpu.cl.SetKernelArg(kk, 1, sizeof seq, &seq);
  if (e == 0) e = gr_gpu.cl.SetKernelArg(kk, 2, sizeof n, &n);
  if (e != 0) return gr_gpu_fail(ctx, "internal error: cannot set a kernel argument", e);
  size_t local = gr_gpu.group;
  size_t global = ((size_t)n + local - 1) / local * local;
  e = gr_gpu.cl.EnqueueNDRangeKernel(gr_gpu.queue, kk, 1, NULL, &global, &local, 0, NULL, NULL);
  if (e != 0) return gr_gpu_fail(ctx, "cannot launch a kernel on the OpenCL device", e);
  return 0;
}

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
  if (gr_gpu.state == 0) gr_gpu.state = gr_gpu_setup() ? -1 : 1;
  if (gr_gpu.state < 0) {
    ctx->failed = 1;
    ctx->site = -2;
    ctx->nargs = 0;
    gr_gpu_unlock();
    return 1;
  }
  struct gr_kerr zero;
  memset(&zero, 0, sizeof zero);
  gr_cl_int e = gr_gpu.cl.EnqueueWriteBuffer(gr_gpu.queue, gr_gpu.err, 1, 0, sizeof zero, &zero, 0, NULL, NULL);
  if (e != 0) {
    gr_gpu_fail(ctx, "cannot write to the OpenCL device", e);
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
    gr_cl_int e = gr_gpu.cl.Finish(gr_gpu.queue);
    if (e != 0) r = gr_gpu_fail(ctx, "the OpenCL device failed", e);
    else if (gr_gpu_check(ctx)) r = 1;
  }
  for (int64_t k = 0; k < gr_gpu.ninputs; k++) gr_gpu_drop(gr_gpu.inputs[k]);
  gr_gpu.ninputs = 0;
  gr_gpu_unlock();
  return r;
}
"#;

/// The prelude of the kernels: OpenCL C 1.2 with 64-bit floats and atomics, the fixed-width
/// integer names the generated code uses, the error record and atomic additions by
/// compare-and-swap.
pub const KERNEL_PRELUDE: &str = r#"#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL FP_CONTRACT OFF
typedef char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef uchar uint8_t;
typedef ushort uint16_t;
typedef uint uint32_t;
typedef ulong uint64_t;
#define INT8_MIN ((int8_t)-128)
#define INT8_MAX ((int8_t)127)
#define INT16_MIN ((int16_t)-32768)
#define INT16_MAX ((int16_t)32767)
#define INT32_MIN ((int32_t)(-2147483647 - 1))
#define INT32_MAX ((int32_t)2147483647)
#define INT64_MIN ((int64_t)(-9223372036854775807L - 1))
#define INT64_MAX ((int64_t)9223372036854775807L)
#define UINT8_MAX ((uint8_t)255)
#define UINT16_MAX ((uint16_t)65535)
#define UINT32_MAX ((uint32_t)4294967295U)
#define UINT64_MAX ((uint64_t)18446744073709551615UL)
#define INT64_C(x) ((int64_t)x##L)
#define UINT64_C(x) ((uint64_t)x##UL)
#define GR_UNUSED __attribute__((unused))
#define GR_INDEPENDENT
#define memcpy(d, s, n) __builtin_memcpy(d, s, n)
/* The C library's names of the single-precision functions (OpenCL overloads one name). */
#define sinf sin
#define cosf cos
#define tanf tan
#define asinf asin
#define acosf acos
#define atanf atan
#define atan2f atan2
#define sinhf sinh
#define coshf cosh
#define tanhf tanh
#define asinhf asinh
#define acoshf acosh
#define atanhf atanh
#define expf exp
#define exp2f exp2
#define expm1f expm1
#define logf log
#define log2f log2
#define log10f log10
#define log1pf log1p
#define powf pow
#define sqrtf sqrt
#define cbrtf cbrt
#define hypotf hypot
#define fabsf fabs
#define fmaf fma
#define fminf fmin
#define fmaxf fmax
#define fmodf fmod
#define floorf floor
#define ceilf ceil
#define roundf round
#define truncf trunc
#define rintf rint
#define nearbyintf rint
#define copysignf copysign
#define nextafterf nextafter
#define erff erf
#define erfcf erfc
#define lgammaf lgamma
#define tgammaf tgamma
#define ldexpf ldexp
#define frexpf frexp

struct gr_kerr {
  int failed;
  int lock;
  long seq;
  long iter;
  int site;
  int nargs;
  long args[32];
};

/* Records iteration `iter`'s error unless an earlier one (by launch, then iteration) is. */
static void gr_kfail(volatile __global struct gr_kerr *e, int64_t seq, int64_t iter, int32_t site, int32_t n, const int64_t *args) {
  while (atomic_xchg(&e->lock, 1)) {}
  if (!e->failed || seq < e->seq || (seq == e->seq && iter < e->iter)) {
    e->seq = seq;
    e->iter = iter;
    e->site = site;
    e->nargs = n;
    for (int32_t i = 0; i < n && i < 32; i++) e->args[i] = args[i];
    e->failed = 1;
  }
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  atomic_xchg(&e->lock, 0);
}
#define gr_fail(c, it, s, n, a) gr_kfail(c, gr_seq, it, s, n, a)

static inline int64_t gr_bits_f64(double x) { return as_long(x); }

static inline void gr_atomic_add_f64(volatile __global double *p, double v) {
  volatile __global ulong *q = (volatile __global ulong *)p;
  ulong old = *q, seen;
  do { seen = old; old = atom_cmpxchg(q, seen, as_ulong(as_double(seen) + v)); } while (old != seen);
}
static inline void gr_atomic_add_f32(volatile __global float *p, float v) {
  volatile __global uint *q = (volatile __global uint *)p;
  uint old = *q, seen;
  do { seen = old; old = atomic_cmpxchg(q, seen, as_uint(as_float(seen) + v)); } while (old != seen);
}
/* Bytes and halves: a compare-and-swap of the aligned word that holds them. */
static inline void gr_atomic_op_small(volatile __global uchar *p, uint v, int bytes, int is_or) {
  volatile __global uint *w = (volatile __global uint *)((uintptr_t)p & ~(uintptr_t)3);
  uint shift = (uint)(((uintptr_t)p & 3) * 8);
  uint mask = (bytes == 1 ? 0xFFu : 0xFFFFu) << shift;
  uint old = *w, seen;
  do {
    seen = old;
    uint cur = (seen & mask) >> shift;
    uint nxt = (is_or ? (cur | v) : (cur + v)) << shift;
    old = atomic_cmpxchg(w, seen, (seen & ~mask) | (nxt & mask));
  } while (old != seen);
}
"#;
