//! The C runtime every generated library starts with: reference-counted buffers and their
//! allocator (free lists, slots), error recording, the choice of threads per call, and the
//! functions the library exports besides its entry points. [`super::print`] puts it before
//! the program's code; the `gpu` backend adds its own host side after it
//! ([`super::gpu::host`]).

/// The runtime shared by every generated program.
pub const RUNTIME: &str = r#"#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif
/* The generated code compares values with constants whose result a narrow type decides
   (`32767i16 >= x`): correct, and not worth a warning. */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wtype-limits"
#endif
/* With GR_VECTOR_MATH (float results need not be the interpreter's to the bit), GCC may
   vectorise loops calling these functions with glibc's vector versions (libmvec, linked),
   which agree with the scalar ones to a few units in the last place. */
#if defined(GR_VECTOR_MATH) && defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define GR_SIMD __attribute__((__simd__("notinbranch")))
/* The double and float versions of a function of one or two arguments. */
#define GR_SIMD1(f) double f(double) GR_SIMD; float f##f(float) GR_SIMD;
#define GR_SIMD2(f) double f(double, double) GR_SIMD; float f##f(float, float) GR_SIMD;
GR_SIMD1(exp) GR_SIMD1(log) GR_SIMD1(sin) GR_SIMD1(cos) GR_SIMD2(pow)
#ifdef __GLIBC_PREREQ
#if __GLIBC_PREREQ(2, 35)
GR_SIMD1(tanh) GR_SIMD1(exp2) GR_SIMD1(expm1) GR_SIMD1(log2) GR_SIMD1(log10) GR_SIMD1(log1p)
GR_SIMD1(tan) GR_SIMD1(sinh) GR_SIMD1(cosh) GR_SIMD1(asin) GR_SIMD1(acos) GR_SIMD1(atan)
GR_SIMD2(atan2) GR_SIMD1(cbrt) GR_SIMD1(erf)
#endif
#endif
#endif

#define GR_UNUSED __attribute__((unused))
/* The allocator's hooks for the gpu backend, which mirrors every buffer on the device
   (backend/c/gpu/host.rs); nothing otherwise. */
#ifdef GR_GPU
static void gr_gpu_block_new(void *b, int64_t capacity);
static void gr_gpu_block_reused(void *b);
static void gr_gpu_block_gone(void *b);
static void gr_gpu_block_filled(void *b);
static void gr_gpu_lock(void);
static void gr_gpu_unlock(void);
#else
#define gr_gpu_block_new(b, capacity) ((void)0)
#define gr_gpu_block_reused(b) ((void)0)
#define gr_gpu_block_gone(b) ((void)0)
#define gr_gpu_block_filled(b) ((void)0)
#define gr_gpu_lock() ((void)0)
#define gr_gpu_unlock() ((void)0)
#endif
/* Before a loop whose iterations touch no memory another iteration writes (the lowering
   proves it): the C compiler may vectorise it without checking at run time whether its
   arrays overlap, which costs more than the loop itself on rows of a few elements. */
/* GR_SIMD_SUM(a, b): the loop that follows carries the float sums a, b (and nothing else): the
   C compiler may vectorise it, reassociating those additions only (-fopenmp-simd, unless the
   interpreter's exact floats are asked for). */
#if defined(GR_OPENMP_SIMD)
#define GR_PRAGMA(...) _Pragma(#__VA_ARGS__)
#define GR_SIMD_SUM(...) GR_PRAGMA(omp simd reduction(+:__VA_ARGS__))
#else
#define GR_SIMD_SUM(...)
#endif
#if defined(__clang__)
#define GR_INDEPENDENT _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define GR_INDEPENDENT _Pragma("GCC ivdep")
#else
#define GR_INDEPENDENT
#endif
/* The body of entry point `f` (after `f` is macro-expanded: a build may rename entries). */
#define GR_CAT2(a, b) a##b
#define GR_CAT(a, b) GR_CAT2(a, b)
#define GR_BODY(f) GR_CAT(f, _body)
/* A library may be compiled as several translation units, each holding the runtime and some
   of the entry points, compiled at the same time (backend/c/build.rs): `GR_PART` is then the
   unit's number. Unit 0 defines the runtime's state shared by all entry points and the
   functions the library exports; the others refer to them. */
#ifdef GR_PART
#if GR_PART == 0
#define GR_STATE __attribute__((visibility("hidden")))
#else
#define GR_STATE extern __attribute__((visibility("hidden")))
#endif
/* Thread-local state gets the access model of a `static` one: a look-up of the library's
   thread-local block per function, not a call per variable accessed (four times as many
   calls in GMM's library otherwise). */
#define GR_TLS_STATE GR_STATE __attribute__((tls_model("local-dynamic"))) __thread
#else
#define GR_STATE static
#define GR_TLS_STATE static __thread
#endif
/* Below these estimated amounts of work a parallel loop runs on the calling thread, and a
   reduce or scan left to right instead of in chunks (tests lower them to reach the parallel
   code with small inputs). */
#ifndef GR_PAR_MIN_WORK
#define GR_PAR_MIN_WORK 20000
#endif
#ifndef GR_PAR_CHUNK_MIN_WORK
#define GR_PAR_CHUNK_MIN_WORK GR_PAR_CHUNK_MIN_WORK_DEFAULT
#endif

/* Whether a call uses its threads or only the calling one is learnt per entry point and
   size of call: each choice is timed, as nanoseconds per unit of estimated work of the loops
   that could use threads (times 1024, a running average), and the faster is taken. The
   other is tried again after `gap` calls, a gap that doubles (from 8 up to 4096 calls) each
   time it loses. Calls are told apart by that work per loop, rounded down to a power of
   two: small inputs may run best on one thread and large ones on all, and the figures of
   one size say nothing about another. Per loop, because what starting the threads costs is
   paid per loop: an ODE solver's gradient at n = 10^4 and 100 steps does the same work as
   at n = 10^5 and 10 steps, in ten times as many loops of a tenth of the size, and where
   the second gains from threads the first loses. A call is assumed to be of the size of the entry's previous call
   (repeated calls on inputs of one shape are the common case); its figures go to the size
   it turned out to have.
   Starting threads costs from a microsecond (threads spinning) to tens (threads asleep,
   woken by the kernel), which a program of many short loops pays in each; and when another
   process holds a core, every loop can wait a time slice for the thread the scheduler held
   back. Where threads lose, for either reason, the calls run on one thread. Loops that
   split floating-point sums among threads split them the same way on one thread, so the
   choice never changes results. Concurrent calls share the figures: relaxed atomic loads
   and stores, no locks (a lost update only delays learning). */
typedef struct {
  int64_t rate[2];
  int64_t runs;
  int64_t gap;
} gr_par_size;

typedef struct {
  int64_t calls;
  int64_t last;
  gr_par_size size[64];
} gr_par_site;

/* The work of the loops that could use threads, and their number, counted by the calling
   thread. */
static __thread int64_t gr_par_work GR_UNUSED;
static __thread int64_t gr_par_loops GR_UNUSED;

#define GR_LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define GR_STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

static inline GR_UNUSED int64_t gr_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The choice for the next call: bit 0 set for threads, bit 1 for a trial of the choice that
   was slower so far, bit 2 for the entry's first call, which starts the threads and is not
   timed. */
static GR_UNUSED int gr_par_pick(gr_par_site *site) {
  int64_t calls = GR_LOAD(site->calls) + 1;
  GR_STORE(site->calls, calls);
  if (calls == 1) return 1 | 4;
  gr_par_size *s = &site->size[GR_LOAD(site->last) & 63];
  int64_t runs = GR_LOAD(s->runs) + 1;
  GR_STORE(s->runs, runs);
  int64_t seq = GR_LOAD(s->rate[0]), par = GR_LOAD(s->rate[1]);
  if (par == 0) return 1;
  if (seq == 0) return 0;
  int best = par < seq;
  int64_t gap = GR_LOAD(s->gap);
  if (gap < 8) gap = 8;
  return runs % gap == 0 ? (!best) | 2 : best;
}

/* Records that a call chosen by `pick` took `ns` for `work` units in `loops` loops
   (work > 0, loops > 0). */
static GR_UNUSED void gr_par_note(gr_par_site *site, int pick, int64_t ns, int64_t work,
                                  int64_t loops) {
  int64_t size = 63 - __builtin_clzll((unsigned long long)(work / loops | 1));
  int64_t predicted = GR_LOAD(site->last);
  GR_STORE(site->last, size);
  if (pick & 4) return;
  /* A trial for another size is an ordinary figure for this one. */
  if (size != predicted) pick &= ~2;
  gr_par_size *s = &site->size[size];
  int par = pick & 1;
  int64_t rate = ns * 1024 / work + 1;
  int64_t old = GR_LOAD(s->rate[par]);
  /* A trial replaces the stale figure; otherwise the average follows the new run by half. */
  int64_t now = (old == 0 || (pick & 2)) ? rate : (old + rate) / 2;
  GR_STORE(s->rate[par], now);
  if (pick & 2) {
    int64_t other = GR_LOAD(s->rate[!par]);
    int64_t gap = GR_LOAD(s->gap);
    GR_STORE(s->gap, now < other ? 8 : (gap < 2048 ? (gap < 8 ? 16 : 2 * gap) : 4096));
  }
}

/* Must agree with the Rust side (backend/c/mod.rs). */
struct gr_ctx {
  int32_t failed;
  int32_t site;
  int32_t nthreads;
  int32_t nargs;
  int64_t args[32];
  /* The iteration of the outermost parallel loop whose error is recorded (INT64_MAX for an
     error outside parallel loops), and the lock under which an error is recorded. */
  int64_t fail_iter;
  int32_t lock;
};

/* A reference-counted buffer; the elements follow the header. `cls` is the size class of a
   small buffer (its capacity is 2^cls bytes including the header), or -1 for a large one,
   whose capacity is `cap`; `next` links a free buffer into its free list. Buffers and so
   the elements are 64-byte aligned: with malloc's 16-byte alignment, vector loads
   straddled cache lines depending on where each process's heap happened to start. */
typedef struct gr_mem {
  int64_t rc;
  int64_t cls;
  struct gr_mem *next;
  int64_t cap;
  struct gr_mem **slot;
  int64_t pad[3];
} gr_mem;

/* Buffers up to 2^GR_CACHE_MAX_CLS bytes are recycled through per-thread free lists, up to
   GR_CACHE_BYTES per thread: arrays built in every iteration of a loop (rows, temporaries)
   and the checkpoints reverse mode stores per iteration, freed in the return sweep, then
   cost no malloc/free pair each (glibc's aligned allocation and the consolidation of many
   small chunks took over half the time of a recurrent network's gradient), and threads of
   a parallel loop stay off the allocator's locks. The lists keep what a call freed for the
   next one; they never hold more than the program once had allocated.
   Larger buffers are kept too, in one list, and reused for a request of at least 3/4 of
   their capacity: each fresh large block comes from the system as untouched pages, and
   faulting them in cost a bundle adjustment Jacobian (tens of MB per call) about a third
   of its time. */
#define GR_CACHE_MAX_CLS 20
#define GR_CACHE_BYTES ((int64_t)256 << 20)
GR_TLS_STATE gr_mem *gr_cache[GR_CACHE_MAX_CLS + 1];
GR_TLS_STATE gr_mem *gr_cache_large;
GR_TLS_STATE int64_t gr_cache_bytes;

/* The smallest cached large buffer of capacity in [total, 4/3 total], taken off the list. */
static GR_UNUSED gr_mem *gr_take_large(size_t total) {
  gr_mem **best = NULL;
  for (gr_mem **p = &gr_cache_large; *p; p = &(*p)->next) {
    size_t cap = (size_t)(*p)->cap;
    if (cap >= total && cap - total <= total / 3 && (!best || cap < (size_t)(*best)->cap))
      best = p;
  }
  if (!best) return NULL;
  gr_mem *b = *best;
  *best = b->next;
  gr_cache_bytes -= b->cap;
  return b;
}

/* Element and byte counts of allocations: sums and products that saturate at INT64_MAX
   (which gr_alloc refuses) rather than wrap around to a small size. */
static inline GR_UNUSED int64_t gr_size_add(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}
static inline GR_UNUSED int64_t gr_size_mul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

static GR_UNUSED void *gr_alloc(gr_mem **m, int64_t bytes) {
  if (bytes < 0 || (uint64_t)bytes > ((uint64_t)1 << 46)) { *m = NULL; return NULL; }
  size_t total = sizeof(gr_mem) + (size_t)bytes;
  gr_mem *b;
  int64_t cls = -1;
  if (total <= ((size_t)1 << GR_CACHE_MAX_CLS)) {
    /* The smallest class whose capacity holds `total` (at least 2^7 bytes). */
    cls = total <= 128 ? 7 : 64 - __builtin_clzll((unsigned long long)(total - 1));
    if (gr_cache[cls]) {
      b = gr_cache[cls];
      gr_cache[cls] = b->next;
      gr_cache_bytes -= (int64_t)1 << cls;
      gr_gpu_block_reused(b);
    } else {
      b = (gr_mem *)aligned_alloc(64, (size_t)1 << cls);
      if (b) gr_gpu_block_new(b, (int64_t)1 << cls);
    }
  } else {
    b = gr_take_large(total);
    if (b) gr_gpu_block_reused(b);
    if (!b) {
      total = (total + 4095) & ~(size_t)4095;
      b = (gr_mem *)aligned_alloc(64, total);
      if (b) { b->cap = (int64_t)total; gr_gpu_block_new(b, (int64_t)total); }
    }
  }
  if (!b) { *m = NULL; return NULL; }
  b->rc = 1;
  b->cls = cls;
  b->slot = NULL;
  *m = b;
  return (void *)(b + 1);
}

static GR_UNUSED inline void gr_free(gr_mem *m) {
  if (m->slot) return; /* parked in its allocation site's slot (see gr_alloc_slot) */
  int64_t cls = m->cls;
  if (cls >= 0 && gr_cache_bytes + ((int64_t)1 << cls) <= GR_CACHE_BYTES) {
    m->next = gr_cache[cls];
    gr_cache[cls] = m;
    gr_cache_bytes += (int64_t)1 << cls;
  } else if (cls < 0 && gr_cache_bytes + m->cap <= GR_CACHE_BYTES) {
    m->next = gr_cache_large;
    gr_cache_large = m;
    gr_cache_bytes += m->cap;
  } else {
    gr_gpu_block_gone(m);
    free(m);
  }
}

/* Allocation sites inside loops keep their last buffer in a slot. A buffer that belongs to a
   slot is not freed when its count drops to zero but parked, and the site's next allocation
   takes it back if it is large enough: an array built in every iteration of a loop (a row,
   an adjoint, a temporary of the return sweep) then costs one allocation per loop, not one
   per iteration, and no access to the thread's free lists. At most one buffer belongs to a
   slot at a time: one still in use when the site allocates again (it became part of the
   loop's result, say) is let go and freed as usual when its last reference goes. Slots live
   in the function, or per thread in a parallel loop, and are released when that ends. */
static GR_UNUSED void gr_slot_release(gr_mem **slot) {
  gr_mem *b = *slot;
  if (!b) return;
  *slot = NULL;
  b->slot = NULL;
  if (b->rc == 0) gr_free(b);
}

static GR_UNUSED __attribute__((noinline)) void *gr_alloc_slot_fresh(gr_mem **slot, gr_mem **m, int64_t bytes) {
  gr_slot_release(slot);
  void *p = gr_alloc(m, bytes);
  if (p) { (*m)->slot = slot; *slot = *m; }
  return p;
}

static GR_UNUSED inline void *gr_alloc_slot(gr_mem **slot, gr_mem **m, int64_t bytes) {
  gr_mem *b = *slot;
  if (b && b->rc == 0 && bytes >= 0 &&
      (uint64_t)bytes + sizeof(gr_mem) <= (b->cls >= 0 ? (uint64_t)1 << b->cls : (uint64_t)b->cap)) {
    b->rc = 1;
    *m = b;
    return (void *)(b + 1);
  }
  return gr_alloc_slot_fresh(slot, m, bytes);
}

static GR_UNUSED inline void gr_incref(gr_mem *m) { if (m) m->rc++; }
static GR_UNUSED inline void gr_decref(gr_mem *m) { if (m && --m->rc == 0) gr_free(m); }

/* Copies `bytes` bytes; the two blocks may overlap. Short copies of whole words between
   blocks that do not overlap (a row of a checkpoint stack, a hidden state of a dozen values)
   are done here: a call of memmove costs more than such a copy (LSTM's gradient spent 11 %
   of its time there). GCC would turn the word loop back into a call of memcpy unless told
   not to. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-loop-distribute-patterns")))
#endif
static GR_UNUSED inline void gr_copy(void *dst, const void *src, int64_t bytes) {
  if (bytes <= 0 || dst == src) return;
  uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
  if (bytes <= 256 && (bytes & 7) == 0 && (d + (uintptr_t)bytes <= s || s + (uintptr_t)bytes <= d)) {
    for (int64_t k = 0; k < bytes; k += 8) {
      uint64_t w;
      __builtin_memcpy(&w, (const char *)src + k, 8);
      __builtin_memcpy((char *)dst + k, &w, 8);
    }
    return;
  }
  memmove(dst, src, (size_t)bytes);
}

/* Records the error of the sequentially first failing iteration `iter` of the outermost
   parallel loop (INT64_MAX outside parallel loops, where nothing runs concurrently): an error
   replaces one recorded by a later iteration and is dropped otherwise, so the error reported
   is the one a sequential run would report, whichever thread failed first in time. Cold: the
   C compiler then predicts every check that leads here as never failing, so code behind many
   checks (the inner loops) is still optimised for speed and vectorised rather than treated as
   rare. A spin lock, since errors are rare and each failing iteration records at most one. */
static GR_UNUSED __attribute__((cold, noinline)) void gr_fail(struct gr_ctx *ctx, int64_t iter, int32_t site, int32_t n, const int64_t *args) {
  while (__atomic_exchange_n(&ctx->lock, 1, __ATOMIC_ACQUIRE)) {}
  if (!ctx->failed || iter < ctx->fail_iter) {
    ctx->site = site;
    ctx->nargs = n;
    for (int32_t i = 0; i < n && i < 32; i++) ctx->args[i] = args[i];
    __atomic_store_n(&ctx->fail_iter, iter, __ATOMIC_RELEASE);
    __atomic_store_n(&ctx->failed, 1, __ATOMIC_RELEASE);
  }
  __atomic_store_n(&ctx->lock, 0, __ATOMIC_RELEASE);
}

/* Whether the work of iteration `iter` of the outermost parallel loop (INT64_MAX outside
   parallel loops) is moot: this iteration or an earlier one failed, so its error is not the
   one reported. Acquiring `failed` makes the `fail_iter` read after it at least as recent as
   the store before it (the zero of a fresh context would stop every iteration); after that
   `fail_iter` only decreases, so a stale value at worst lets an iteration run that could have
   been skipped. */
static GR_UNUSED inline int gr_stop(struct gr_ctx *ctx, int64_t iter) {
  return __atomic_load_n(&ctx->failed, __ATOMIC_ACQUIRE) && __atomic_load_n(&ctx->fail_iter, __ATOMIC_RELAXED) <= iter;
}

static GR_UNUSED inline int64_t gr_bits_f64(double x) { int64_t r; memcpy(&r, &x, sizeof r); return r; }

/* Bytes copied by gr_unique since the library was loaded: what the value semantics of
   arrays cost where an update could not happen in place (read by `gradus_copied_bytes`). */
GR_STATE int64_t gr_copied_bytes;

/* The copy of gr_unique, out of line: the check is inlined at every in-place update and
   nearly always finds the buffer owned already. */
static GR_UNUSED __attribute__((noinline)) int gr_unique_copy(void **data, gr_mem **m, int64_t bytes, int counted) {
  if (counted) __atomic_fetch_add(&gr_copied_bytes, bytes, __ATOMIC_RELAXED);
  gr_mem *nm;
  void *nd = gr_alloc(&nm, bytes);
  if (!nd) return 1;
  gr_copy(nd, *data, bytes);
  gr_gpu_block_filled(nm);
  gr_decref(*m);
  *data = nd;
  *m = nm;
  return 0;
}

/* Makes an array's buffer exclusively owned, copying it if it is shared or borrowed. */
static GR_UNUSED inline int gr_unique(void **data, gr_mem **m, int64_t bytes) {
  if (__builtin_expect(*m && (*m)->rc == 1, 1)) return 0;
  return gr_unique_copy(data, m, bytes, 1);
}

/* The same for the program's own copy of an array at the array's last use (it takes the
   array's buffer): not counted in gr_copied_bytes, as the copy is what the program asks for. */
static GR_UNUSED inline int gr_own(void **data, gr_mem **m, int64_t bytes) {
  if (*m && (*m)->rc == 1) return 0;
  return gr_unique_copy(data, m, bytes, 0);
}

#if !defined(GR_PART) || GR_PART == 0
void gradus_release(void *m);
void gradus_release(void *m) { gr_gpu_lock(); gr_decref((gr_mem *)m); gr_gpu_unlock(); }

int64_t gradus_copied_bytes(void);
int64_t gradus_copied_bytes(void) { return __atomic_load_n(&gr_copied_bytes, __ATOMIC_RELAXED); }

int gradus_abi_version(void);
int gradus_abi_version(void) { return 2; }
#endif

"#;
