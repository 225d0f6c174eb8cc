//! The CUDA device runtime of the `gpu` backend (C text, after
//! [`super::host::DEVICE_INTERFACE`]): the driver (`libcuda.so.1`) and NVRTC (`libnvrtc.so`,
//! or the file `GRADUS_NVRTC` names) opened with `dlopen`; device `GRADUS_CUDA_DEVICE`
//! (default 0) and its primary context; the kernels compiled by NVRTC from the CUDA prelude
//! and the common kernel text for the device's architecture (a cubin, or PTX for the driver
//! to finish when NVRTC does not know the architecture), launched on the default stream in
//! blocks of 256 threads (or of the block size a launch asks for: a reduction's work-group
//! trees). Copies are synchronous with the host and ordered after the
//! kernels launched before them.

/// The CUDA runtime: `gr_cu_setup` fills a `gr_dev_ops` table.
pub const RUNTIME: &str = r#"
typedef int gr_cu_res;
typedef void *gr_cu_obj;
#define GR_CU_FNS(X) \
  X(Init, "cuInit", (unsigned)) \
  X(DeviceGetCount, "cuDeviceGetCount", (int *)) \
  X(DeviceGet, "cuDeviceGet", (int *, int)) \
  X(DeviceGetName, "cuDeviceGetName", (char *, int, int)) \
  X(DeviceGetAttribute, "cuDeviceGetAttribute", (int *, int, int)) \
  X(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (gr_cu_obj *, int)) \
  X(CtxSetCurrent, "cuCtxSetCurrent", (gr_cu_obj)) \
  X(CtxSynchronize, "cuCtxSynchronize", (void)) \
  X(ModuleLoadData, "cuModuleLoadData", (gr_cu_obj *, const void *)) \
  X(ModuleGetFunction, "cuModuleGetFunction", (gr_cu_obj *, gr_cu_obj, const char *)) \
  X(MemAlloc, "cuMemAlloc_v2", (uint64_t *, size_t)) \
  X(MemFree, "cuMemFree_v2", (uint64_t)) \
  X(MemcpyHtoD, "cuMemcpyHtoD_v2", (uint64_t, const void *, size_t)) \
  X(MemcpyDtoH, "cuMemcpyDtoH_v2", (void *, uint64_t, size_t)) \
  X(LaunchKernel, "cuLaunchKernel", (gr_cu_obj, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, gr_cu_obj, void **, void **))
#define GR_NVRTC_FNS(X) \
  X(Version, "nvrtcVersion", (int *, int *)) \
  X(CreateProgram, "nvrtcCreateProgram", (gr_cu_obj *, const char *, const char *, int, const char *const *, const char *const *)) \
  X(CompileProgram, "nvrtcCompileProgram", (gr_cu_obj, int, const char *const *)) \
  X(GetProgramLogSize, "nvrtcGetProgramLogSize", (gr_cu_obj, size_t *)) \
  X(GetProgramLog, "nvrtcGetProgramLog", (gr_cu_obj, char *)) \
  X(GetPTXSize, "nvrtcGetPTXSize", (gr_cu_obj, size_t *)) \
  X(GetPTX, "nvrtcGetPTX", (gr_cu_obj, char *)) \
  X(GetCUBINSize, "nvrtcGetCUBINSize", (gr_cu_obj, size_t *)) \
  X(GetCUBIN, "nvrtcGetCUBIN", (gr_cu_obj, char *)) \
  X(DestroyProgram, "nvrtcDestroyProgram", (gr_cu_obj *))

#define GR_CU_COMPUTE_MAJOR 75
#define GR_CU_COMPUTE_MINOR 76
#define GR_CU_BLOCK 256
#define GR_NVRTC_INVALID_OPTION 5

static struct {
  struct {
#define GR_CU_FIELD(n, s, a) gr_cu_res (*n) a;
    GR_CU_FNS(GR_CU_FIELD)
  } api;
  struct {
    GR_NVRTC_FNS(GR_CU_FIELD)
#undef GR_CU_FIELD
  } rtc;
  int dev;
  gr_cu_obj ctx, module;
  gr_cu_obj kernels[GR_GPU_KERNELS + 1];
  /* Each kernel's argument values (at most 8 bytes each) and pointers to them. */
  uint64_t vals[GR_GPU_KERNELS + 1][GR_GPU_MAXARGS + 1];
  void *ptrs[GR_GPU_KERNELS + 1][GR_GPU_MAXARGS + 1];
} gr_cu;

static GR_UNUSED int gr_cu_alloc(uint64_t *buf, size_t bytes) { return gr_cu.api.MemAlloc(buf, bytes); }
static GR_UNUSED void gr_cu_release(uint64_t buf) { gr_cu.api.MemFree(buf); }
static GR_UNUSED int gr_cu_write(uint64_t buf, size_t bytes, const void *src) { return gr_cu.api.MemcpyHtoD(buf, src, bytes); }
static GR_UNUSED int gr_cu_read(uint64_t buf, size_t bytes, void *dst) { return gr_cu.api.MemcpyDtoH(dst, buf, bytes); }
static GR_UNUSED int gr_cu_arg(int k, int index, const void *value, size_t bytes) {
  if (index < 0 || index > GR_GPU_MAXARGS || bytes > 8) return -1;
  gr_cu.vals[k][index] = 0;
  memcpy(&gr_cu.vals[k][index], value, bytes);
  return 0;
}
static GR_UNUSED int gr_cu_launch(int k, int64_t n, int64_t group) {
  uint64_t block = group > 0 ? (uint64_t)group : GR_CU_BLOCK;
  uint64_t blocks = ((uint64_t)n + block - 1) / block;
  if (blocks > 0x7FFFFFFFu || block > 1024) return -1;
  return gr_cu.api.LaunchKernel(gr_cu.kernels[k], (unsigned)blocks, 1, 1, (unsigned)block, 1, 1, 0, NULL, gr_cu.ptrs[k], NULL);
}
static GR_UNUSED int gr_cu_finish(void) { return gr_cu.api.CtxSynchronize(); }
static GR_UNUSED int gr_cu_enter(void) { return gr_cu.api.CtxSetCurrent(gr_cu.ctx); }

static GR_UNUSED void *gr_cu_open_nvrtc(void) {
  static const char *const libs[] = {
    "libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2",
    "/usr/local/cuda/lib64/libnvrtc.so", NULL};
  void *lib = gr_dev_open("GRADUS_NVRTC", libs);
  const char *home = getenv("CUDA_HOME");
  if (!lib && home && *home && !getenv("GRADUS_NVRTC")) {
    char path[1024];
    snprintf(path, sizeof path, "%s/lib64/libnvrtc.so", home);
    lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  }
  return lib;
}

/* Compiles the kernels for architecture `arch` (e.g. 90) into `image`: a cubin, or PTX for
   the driver when NVRTC does not know the architecture. */
static GR_UNUSED int gr_cu_compile(int arch, char **image, char *why, size_t nwhy) {
  char *src = gr_dev_source(gr_gpu_prelude_cuda);
  if (!src) { snprintf(why, nwhy, "cannot allocate host memory"); return 1; }
  gr_cu_res e = 0;
  for (int attempt = 0; attempt < 2; attempt++) {
    char target[64];
    if (attempt == 0) snprintf(target, sizeof target, "--gpu-architecture=sm_%d", arch);
    else snprintf(target, sizeof target, "--gpu-architecture=compute_%d", arch > 90 ? 90 : arch);
    const char *opts[] = {target, "--std=c++17", "--device-as-default-execution-space", "--fmad=false", "-w"};
    gr_cu_obj prog = NULL;
    e = gr_cu.rtc.CreateProgram(&prog, src, "gradus_kernels.cu", 0, NULL, NULL);
    if (e != 0) { free(src); snprintf(why, nwhy, "NVRTC cannot create a program (error %d)", e); return 1; }
    e = gr_cu.rtc.CompileProgram(prog, 5, opts);
    if (e == GR_NVRTC_INVALID_OPTION && attempt == 0) { gr_cu.rtc.DestroyProgram(&prog); continue; }
    if (e != 0) {
      int n = snprintf(why, nwhy, "internal error: NVRTC rejected the generated kernels (error %d):\n", e);
      size_t len = 0;
      gr_cu.rtc.GetProgramLogSize(prog, &len);
      char *log = (char *)malloc(len + 1);
      if (log && n > 0 && (size_t)n < nwhy) {
        gr_cu.rtc.GetProgramLog(prog, log);
        log[len] = 0;
        snprintf(why + n, nwhy - (size_t)n, "%s", log);
      }
      free(log);
      gr_cu.rtc.DestroyProgram(&prog);
      free(src);
      return 1;
    }
    size_t size = 0;
    e = attempt == 0 ? gr_cu.rtc.GetCUBINSize(prog, &size) : gr_cu.rtc.GetPTXSize(prog, &size);
    *image = e == 0 ? (char *)malloc(size + 1) : NULL;
    if (*image) e = attempt == 0 ? gr_cu.rtc.GetCUBIN(prog, *image) : gr_cu.rtc.GetPTX(prog, *image);
    gr_cu.rtc.DestroyProgram(&prog);
    free(src);
    if (!*image || e != 0) { snprintf(why, nwhy, "NVRTC produced no code (error %d)", e); return 1; }
    return 0;
  }
  free(src);
  snprintf(why, nwhy, "NVRTC supports no architecture for this device (sm_%d)", arch);
  return 1;
}

static GR_UNUSED int gr_cu_device(char *name, size_t nname, int *arch, char *why, size_t nwhy) {
  gr_cu_res e = gr_cu.api.Init(0);
  int count = 0;
  if (e == 0) e = gr_cu.api.DeviceGetCount(&count);
  if (e != 0 || count == 0) {
    snprintf(why, nwhy, "the CUDA driver finds no device (error %d)", e);
    return 1;
  }
  const char *want = getenv("GRADUS_CUDA_DEVICE");
  int ordinal = want && *want ? atoi(want) : 0;
  if (ordinal < 0 || ordinal >= count) {
    snprintf(why, nwhy, "GRADUS_CUDA_DEVICE=%s: there are only %d CUDA devices", want, count);
    return 1;
  }
  int major = 0, minor = 0;
  e = gr_cu.api.DeviceGet(&gr_cu.dev, ordinal);
  if (e == 0) e = gr_cu.api.DeviceGetAttribute(&major, GR_CU_COMPUTE_MAJOR, gr_cu.dev);
  if (e == 0) e = gr_cu.api.DeviceGetAttribute(&minor, GR_CU_COMPUTE_MINOR, gr_cu.dev);
  if (e == 0) e = gr_cu.api.DeviceGetName(name, (int)nname - 1, gr_cu.dev);
  if (e == 0) e = gr_cu.api.DevicePrimaryCtxRetain(&gr_cu.ctx, gr_cu.dev);
  if (e == 0) e = gr_cu.api.CtxSetCurrent(gr_cu.ctx);
  if (e != 0) { snprintf(why, nwhy, "cannot open CUDA device %d (error %d)", ordinal, e); return 1; }
  *arch = major * 10 + minor;
  return 0;
}

/* Opens the driver and NVRTC, picks the device and builds the kernels; fills `ops` and the
   device's name, or says in `why` what failed. */
static GR_UNUSED int gr_cu_setup(gr_dev_ops *ops, char *name, size_t nname, char *why, size_t nwhy) {
  static const char *const driver[] = {"libcuda.so.1", "libcuda.so", NULL};
  void *lib = gr_dev_open(NULL, driver);
  if (!lib) { snprintf(why, nwhy, "no CUDA driver (libcuda.so.1) was found"); return 1; }
#define GR_CU_LOAD(n, s, a) \
  *(void **)&gr_cu.api.n = dlsym(lib, s); \
  if (!gr_cu.api.n) { snprintf(why, nwhy, "the CUDA driver has no %s", s); return 1; }
  GR_CU_FNS(GR_CU_LOAD)
#undef GR_CU_LOAD
  int arch = 0;
  if (gr_cu_device(name, nname, &arch, why, nwhy)) return 1;
  void *rtc = gr_cu_open_nvrtc();
  if (!rtc) {
    snprintf(why, nwhy, "NVRTC (libnvrtc.so) was not found: install the CUDA toolkit's NVRTC, or set GRADUS_NVRTC to the library's path");
    return 1;
  }
#define GR_RTC_LOAD(n, s, a) \
  *(void **)&gr_cu.rtc.n = dlsym(rtc, s); \
  if (!gr_cu.rtc.n) { snprintf(why, nwhy, "NVRTC has no %s", s); return 1; }
  GR_NVRTC_FNS(GR_RTC_LOAD)
#undef GR_RTC_LOAD
  char *image = NULL;
  if (gr_cu_compile(arch, &image, why, nwhy)) return 1;
  gr_cu_res e = gr_cu.api.ModuleLoadData(&gr_cu.module, image);
  free(image);
  if (e != 0) { snprintf(why, nwhy, "the CUDA driver cannot load the compiled kernels (error %d)", e); return 1; }
  for (int k = 0; k < GR_GPU_KERNELS; k++) {
    char kname[32];
    snprintf(kname, sizeof kname, "gr_k%d", k);
    e = gr_cu.api.ModuleGetFunction(&gr_cu.kernels[k], gr_cu.module, kname);
    if (e != 0) { snprintf(why, nwhy, "internal error: no kernel %s (CUDA error %d)", kname, e); return 1; }
    for (int i = 0; i <= GR_GPU_MAXARGS; i++) gr_cu.ptrs[k][i] = &gr_cu.vals[k][i];
  }
  gr_dev_ops o = {"CUDA", gr_cu_alloc, gr_cu_release, gr_cu_write, gr_cu_read, gr_cu_arg, gr_cu_launch, gr_cu_finish, gr_cu_enter};
  *ops = o;
  return 0;
}
"#;
