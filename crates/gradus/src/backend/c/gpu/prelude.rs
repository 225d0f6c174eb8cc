//! The preludes of the kernels. The kernels are written once, in OpenCL C 1.2 (with 64-bit
//! floats and atomics); [`OPENCL`] is the OpenCL compiler's prelude, and [`CUDA`] makes the
//! same text CUDA C++ for NVRTC (compiled with `--device-as-default-execution-space`): it
//! defines OpenCL's address-space qualifiers away (`__local` as `__shared__`) and its built-in
//! functions (`get_global_id`, `get_local_id`, `get_group_id`, `barrier`, `as_*`, the
//! atomics) over CUDA's, and `GR_LPTR` as the local address space of a pointer (OpenCL's
//! `__local`, nothing in CUDA). [`COMMON`] follows either: the fixed-width integer limits,
//! the error record and the atomic additions by compare-and-swap, in global and in local
//! memory.

/// The OpenCL compiler's prelude.
pub const OPENCL: &str = r#"#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL FP_CONTRACT OFF
#define GR_LPTR __local
typedef char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef uchar uint8_t;
typedef ushort uint16_t;
typedef uint uint32_t;
typedef ulong uint64_t;
#define memcpy(d, s, n) __builtin_memcpy(d, s, n)
/* The bit counts over OpenCL's built-ins rather than the C compiler's (callers pass no zero):
   not every OpenCL compiler lowers clang's for narrow operands. */
#define __builtin_clzll(x) ((int)clz((ulong)(x)))
#define __builtin_ctzll(x) (63 - (int)clz((ulong)(x) & (0 - (ulong)(x))))
#define __builtin_popcountll(x) ((int)popcount((ulong)(x)))
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
/* tanh in single precision, exactly ±1 where the correctly rounded result is (|x| above
   atanh(1 - 2^-25) ≈ 9.0109), infinities included: POCL's stops one unit in the last place
   short of 1 for every large |x|. */
static inline float gr_tanhf(float x) { return fabs(x) > 9.0109f ? copysign(1.0f, x) : tanh(x); }
#define tanhf gr_tanhf
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
"#;

/// NVRTC's prelude: OpenCL C's vocabulary over CUDA C++.
pub const CUDA: &str = r#"#define __kernel extern "C" __global__
#define __global
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
typedef unsigned long uintptr_t;
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
#define INFINITY __int_as_float(0x7f800000)
#define NAN __int_as_float(0x7fc00000)
#define __builtin_clzll(x) __clzll((long long)(x))
#define __builtin_ctzll(x) (__ffsll((long long)(x)) - 1)
#define __builtin_popcountll(x) __popcll((unsigned long long)(x))
#define CLK_GLOBAL_MEM_FENCE 0
#define CLK_LOCAL_MEM_FENCE 1
#define mem_fence(flags) __threadfence()
#define __local __shared__
#define GR_LPTR
#define barrier(flags) __syncthreads()
static inline unsigned long get_global_id(int dim) {
  return (unsigned long)blockIdx.x * blockDim.x + threadIdx.x;
}
static inline unsigned long get_local_id(int dim) { return threadIdx.x; }
static inline unsigned long get_group_id(int dim) { return blockIdx.x; }
static inline long as_long(double x) { return (long)__double_as_longlong(x); }
static inline ulong as_ulong(double x) { return (ulong)__double_as_longlong(x); }
static inline double as_double(ulong x) { return __longlong_as_double((long long)x); }
static inline uint as_uint(float x) { return __float_as_uint(x); }
static inline float as_float(uint x) { return __uint_as_float(x); }
static inline int atomic_xchg(volatile int *p, int v) { return atomicExch((int *)p, v); }
static inline uint atomic_cmpxchg(volatile uint *p, uint cmp, uint v) {
  return atomicCAS((unsigned int *)p, cmp, v);
}
static inline ulong atom_cmpxchg(volatile ulong *p, ulong cmp, ulong v) {
  return (ulong)atomicCAS((unsigned long long *)p, (unsigned long long)cmp, (unsigned long long)v);
}
static inline uint atomic_add(volatile uint *p, uint v) { return atomicAdd((unsigned int *)p, v); }
static inline ulong atom_add(volatile ulong *p, ulong v) {
  return (ulong)atomicAdd((unsigned long long *)p, (unsigned long long)v);
}
"#;

/// What follows either runtime's prelude.
pub const COMMON: &str = r#"#define INT8_MIN ((int8_t)-128)
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
#define GR_SIMD_SUM(...)

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

/* Atomic additions of floats by compare-and-swap, in global memory (`gr_atomic_add_*`) and
   in local memory (`gr_local_add_*`; `GR_LPTR`: OpenCL's `__local`, nothing in CUDA, whose
   atomics take generic pointers). */
#define GR_FLOAT_ADDS(kind, space) \
static inline void gr_##kind##_add_f64(volatile space double *p, double v) { \
  volatile space ulong *q = (volatile space ulong *)p; \
  ulong old = *q, seen; \
  do { seen = old; old = atom_cmpxchg(q, seen, as_ulong(as_double(seen) + v)); } while (old != seen); \
} \
static inline void gr_##kind##_add_f32(volatile space float *p, float v) { \
  volatile space uint *q = (volatile space uint *)p; \
  uint old = *q, seen; \
  do { seen = old; old = atomic_cmpxchg(q, seen, as_uint(as_float(seen) + v)); } while (old != seen); \
}
GR_FLOAT_ADDS(atomic, __global)
GR_FLOAT_ADDS(local, GR_LPTR)
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
