//! The OpenCL device runtime of the `gpu` backend (C text, after
//! [`super::host::DEVICE_INTERFACE`]): the ICD loader (`libOpenCL.so.1`) opened with
//! `dlopen`, a device picked (the first GPU of any platform, else the first device of any
//! kind, such as POCL's CPU device; `GRADUS_OPENCL_DEVICE=N` picks the N-th device of all
//! platforms), the kernels built from the OpenCL prelude and the common kernel text, one
//! in-order queue.

/// The OpenCL runtime: `gr_cl_setup` fills a `gr_dev_ops` table.
pub const RUNTIME: &str = r#"
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

#define GR_CL_DEVICE_TYPE_GPU ((uint64_t)1 << 2)
#define GR_CL_DEVICE_TYPE_ALL ((uint64_t)0xFFFFFFFF)
#define GR_CL_DEVICE_NAME 0x102B
#define GR_CL_DEVICE_MAX_WORK_GROUP_SIZE 0x1004
#define GR_CL_PROGRAM_BUILD_LOG 0x1183
#define GR_CL_MEM_READ_WRITE ((uint64_t)1)

static struct {
  struct {
#define GR_CL_FIELD(r, n, a) r (*n) a;
    GR_CL_FNS(GR_CL_FIELD)
#undef GR_CL_FIELD
  } api;
  gr_cl_obj ctx, queue, dev, prog;
  gr_cl_obj kernels[GR_GPU_KERNELS + 1];
  size_t group;
} gr_cl;

static GR_UNUSED int gr_cl_alloc(uint64_t *buf, size_t bytes) {
  gr_cl_int e = 0;
  gr_cl_obj m = gr_cl.api.CreateBuffer(gr_cl.ctx, GR_CL_MEM_READ_WRITE, bytes, NULL, &e);
  *buf = (uint64_t)(uintptr_t)m;
  return m ? 0 : (e ? e : -1);
}
static GR_UNUSED void gr_cl_release(uint64_t buf) { gr_cl.api.ReleaseMemObject((gr_cl_obj)(uintptr_t)buf); }
static GR_UNUSED int gr_cl_write(uint64_t buf, size_t bytes, const void *src) {
  return gr_cl.api.EnqueueWriteBuffer(gr_cl.queue, (gr_cl_obj)(uintptr_t)buf, 1, 0, bytes, src, 0, NULL, NULL);
}
static GR_UNUSED int gr_cl_read(uint64_t buf, size_t bytes, void *dst) {
  return gr_cl.api.EnqueueReadBuffer(gr_cl.queue, (gr_cl_obj)(uintptr_t)buf, 1, 0, bytes, dst, 0, NULL, NULL);
}
static GR_UNUSED int gr_cl_arg(int k, int index, const void *value, size_t bytes) {
  return gr_cl.api.SetKernelArg(gr_cl.kernels[k], (gr_cl_uint)index, bytes, value);
}
static GR_UNUSED int gr_cl_launch(int k, int64_t n, int64_t group) {
  size_t local = group > 0 ? (size_t)group : gr_cl.group;
  size_t global = ((size_t)n + local - 1) / local * local;
  return gr_cl.api.EnqueueNDRangeKernel(gr_cl.queue, gr_cl.kernels[k], 1, NULL, &global, &local, 0, NULL, NULL);
}
static GR_UNUSED int gr_cl_finish(void) { return gr_cl.api.Finish(gr_cl.queue); }
static GR_UNUSED int gr_cl_enter(void) { return 0; }

static GR_UNUSED int gr_cl_pick_device(char *why, size_t nwhy) {
  gr_cl_obj plats[16];
  gr_cl_uint np = 0;
  if (gr_cl.api.GetPlatformIDs(16, plats, &np) != 0 || np == 0) {
    snprintf(why, nwhy, "no OpenCL platform found (install an OpenCL driver: the GPU vendor's, or pocl-opencl-icd to run kernels on the CPU)");
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
      if (gr_cl.api.GetDeviceIDs(plats[p], type, 16, devs, &nd) != 0) continue;
      if (nd > 16) nd = 16;
      for (gr_cl_uint d = 0; d < nd; d++, seen++) {
        if (wanted >= 0 && seen != wanted) continue;
        gr_cl.dev = devs[d];
        return 0;
      }
    }
    if (wanted >= 0) break;
  }
  if (wanted >= 0)
    snprintf(why, nwhy, "GRADUS_OPENCL_DEVICE=%s: there are only %lld OpenCL devices", want, (long long)seen);
  else
    snprintf(why, nwhy, "the OpenCL platforms have no devices");
  return 1;
}

/* The context. One made while another library of the process makes its own can come out
   without its device's limits (POCL), which a first allocation shows: such a context is
   made again. */
static GR_UNUSED int gr_cl_context(char *why, size_t nwhy) {
  gr_cl_int e = 0;
  for (int attempt = 0; attempt < 50; attempt++) {
    gr_cl.ctx = gr_cl.api.CreateContext(NULL, 1, &gr_cl.dev, NULL, NULL, &e);
    if (!gr_cl.ctx) { snprintf(why, nwhy, "cannot create an OpenCL context (error %d)", e); return 1; }
    gr_cl_obj probe = gr_cl.api.CreateBuffer(gr_cl.ctx, GR_CL_MEM_READ_WRITE, 64, NULL, &e);
    if (probe) { gr_cl.api.ReleaseMemObject(probe); return 0; }
    gr_cl.api.ReleaseContext(gr_cl.ctx);
    struct timespec pause = {0, 10 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  snprintf(why, nwhy, "cannot allocate on the OpenCL device (error %d)", e);
  return 1;
}

static GR_UNUSED int gr_cl_build(char *why, size_t nwhy) {
  gr_cl_int e = 0;
  if (gr_cl_context(why, nwhy)) return 1;
  gr_cl.queue = gr_cl.api.CreateCommandQueue(gr_cl.ctx, gr_cl.dev, 0, &e);
  if (!gr_cl.queue) { snprintf(why, nwhy, "cannot create an OpenCL queue (error %d)", e); return 1; }
  const char *src[2] = {gr_gpu_prelude_opencl, gr_gpu_kernels};
  gr_cl.prog = gr_cl.api.CreateProgramWithSource(gr_cl.ctx, 2, src, NULL, &e);
  if (!gr_cl.prog) { snprintf(why, nwhy, "cannot create the OpenCL program (error %d)", e); return 1; }
  e = gr_cl.api.BuildProgram(gr_cl.prog, 1, &gr_cl.dev, "-cl-std=CL1.2 -w", NULL, NULL);
  if (e != 0) {
    int n = snprintf(why, nwhy, "internal error: the OpenCL compiler rejected the generated kernels (error %d):\n", e);
    size_t len = 0;
    if (n > 0 && (size_t)n < nwhy)
      gr_cl.api.GetProgramBuildInfo(gr_cl.prog, gr_cl.dev, GR_CL_PROGRAM_BUILD_LOG, nwhy - (size_t)n - 1, why + n, &len);
    return 1;
  }
  for (int k = 0; k < GR_GPU_KERNELS; k++) {
    char name[32];
    snprintf(name, sizeof name, "gr_k%d", k);
    gr_cl.kernels[k] = gr_cl.api.CreateKernel(gr_cl.prog, name, &e);
    if (!gr_cl.kernels[k]) { snprintf(why, nwhy, "internal error: no kernel %s (error %d)", name, e); return 1; }
  }
  size_t maxg = 0;
  gr_cl.api.GetDeviceInfo(gr_cl.dev, GR_CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof maxg, &maxg, NULL);
  gr_cl.group = maxg >= 256 || maxg == 0 ? 256 : maxg;
  return 0;
}

/* Opens OpenCL, picks the device and builds the kernels; fills `ops` and the device's name,
   or says in `why` what failed. */
static GR_UNUSED int gr_cl_setup(gr_dev_ops *ops, char *name, size_t nname, char *why, size_t nwhy) {
  static const char *const libs[] = {"libOpenCL.so.1", "libOpenCL.so", NULL};
  void *lib = gr_dev_open(NULL, libs);
  if (!lib) {
    snprintf(why, nwhy, "no OpenCL loader (libOpenCL.so.1) was found: install one (Debian: ocl-icd-libopencl1) and a driver (the GPU vendor's, or pocl-opencl-icd for the CPU)");
    return 1;
  }
#define GR_CL_LOAD(r, n, a) \
  *(void **)&gr_cl.api.n = dlsym(lib, "cl" #n); \
  if (!gr_cl.api.n) { snprintf(why, nwhy, "the OpenCL loader has no cl%s", #n); return 1; }
  GR_CL_FNS(GR_CL_LOAD)
#undef GR_CL_LOAD
  /* Several libraries of one process setting POCL up at once can find no device for a
     moment: the search is repeated before it is reported. */
  for (int attempt = 0; gr_cl_pick_device(why, nwhy); attempt++) {
    if (attempt == 50) return 1;
    struct timespec pause = {0, 10 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  if (gr_cl_build(why, nwhy)) return 1;
  gr_cl.api.GetDeviceInfo(gr_cl.dev, GR_CL_DEVICE_NAME, nname - 1, name, NULL);
  gr_dev_ops o = {"OpenCL", gr_cl_alloc, gr_cl_release, gr_cl_write, gr_cl_read, gr_cl_arg, gr_cl_launch, gr_cl_finish, gr_cl_enter};
  *ops = o;
  return 0;
}
"#;
