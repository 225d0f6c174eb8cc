//! Every program of the corpus (`tests/programs`) and every benchmark has its `gpu` kernels
//! compiled as CUDA by NVRTC, as the CUDA runtime compiles them on a machine with an NVIDIA
//! GPU: a kernel that OpenCL accepts and CUDA rejects is caught on a machine without one.
//!
//! NVRTC is the library `GRADUS_NVRTC` names (for instance PyPI's `nvidia-cuda-nvrtc-cu12`
//! in a virtual environment: `.../site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12`), else
//! `libnvrtc.so` on the library path. Without one the test says so and passes, unless
//! `GRADUS_REQUIRE_NVRTC` is set (as in CI).

use gradus::pipeline::{Stage, dump_stage};
use libloading::{Library, Symbol};
use std::ffi::{CString, c_char, c_int, c_void};
use std::path::{Path, PathBuf};

type Create = unsafe extern "C" fn(
    *mut *mut c_void,
    *const c_char,
    *const c_char,
    c_int,
    *const *const c_char,
    *const *const c_char,
) -> c_int;
type Compile = unsafe extern "C" fn(*mut c_void, c_int, *const *const c_char) -> c_int;
type LogSize = unsafe extern "C" fn(*mut c_void, *mut usize) -> c_int;
type Log = unsafe extern "C" fn(*mut c_void, *mut c_char) -> c_int;
type Destroy = unsafe extern "C" fn(*mut *mut c_void) -> c_int;

/// NVRTC, opened.
struct Nvrtc {
    lib: Library,
}

impl Nvrtc {
    fn open() -> Result<Nvrtc, String> {
        let name = std::env::var("GRADUS_NVRTC").unwrap_or_else(|_| "libnvrtc.so".into());
        // SAFETY: loading NVRTC runs no initialisation beyond the library's own.
        let lib = unsafe { Library::new(&name) }.map_err(|e| format!("{name}: {e}"))?;
        Ok(Nvrtc { lib })
    }

    /// Compiles `source` for sm_90 (the H100/H200) with the CUDA runtime's options: the log
    /// when NVRTC rejects it.
    fn compile(&self, source: &str) -> Result<(), String> {
        // SAFETY: the signatures are NVRTC's (nvrtc.h), and every pointer passed lives
        // through the call.
        unsafe {
            let create: Symbol<Create> = self.lib.get(b"nvrtcCreateProgram").map_err(s)?;
            let compile: Symbol<Compile> = self.lib.get(b"nvrtcCompileProgram").map_err(s)?;
            let log_size: Symbol<LogSize> = self.lib.get(b"nvrtcGetProgramLogSize").map_err(s)?;
            let log: Symbol<Log> = self.lib.get(b"nvrtcGetProgramLog").map_err(s)?;
            let destroy: Symbol<Destroy> = self.lib.get(b"nvrtcDestroyProgram").map_err(s)?;
            let src = CString::new(source).map_err(s)?;
            let name = CString::new("gradus_kernels.cu").map_err(s)?;
            let mut prog = std::ptr::null_mut();
            let r = create(
                &mut prog,
                src.as_ptr(),
                name.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            );
            if r != 0 {
                return Err(format!("nvrtcCreateProgram failed ({r})"));
            }
            let options: Vec<CString> = [
                "--gpu-architecture=sm_90",
                "--std=c++17",
                "--device-as-default-execution-space",
                "--fmad=false",
                "-w",
            ]
            .iter()
            .map(|o| CString::new(*o).expect("an option"))
            .collect();
            let ptrs: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
            let r = compile(prog, ptrs.len() as c_int, ptrs.as_ptr());
            let result = if r == 0 {
                Ok(())
            } else {
                let mut n = 0usize;
                log_size(prog, &mut n);
                let mut buf = vec![0u8; n + 1];
                log(prog, buf.as_mut_ptr().cast());
                let text = String::from_utf8_lossy(&buf[..n.saturating_sub(1)]).into_owned();
                Err(format!("NVRTC error {r}:\n{text}"))
            };
            destroy(&mut prog);
            result
        }
    }
}

fn s(e: impl std::fmt::Display) -> String {
    e.to_string()
}

fn programs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            programs(&p, out);
        } else if p.extension().is_some_and(|x| x == "fut") {
            out.push(p);
        }
    }
}

#[test]
fn every_kernel_compiles_as_cuda() {
    let nvrtc = match Nvrtc::open() {
        Ok(n) => n,
        Err(e) if std::env::var_os("GRADUS_REQUIRE_NVRTC").is_none() => {
            eprintln!("every_kernel_compiles_as_cuda: skipped, no NVRTC ({e})");
            return;
        }
        Err(e) => panic!("GRADUS_REQUIRE_NVRTC is set and NVRTC does not load: {e}"),
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    programs(&root.join("tests/programs"), &mut files);
    programs(&root.join("benchmarks"), &mut files);
    files.sort();
    let (mut compiled, mut failures) = (0, Vec::new());
    for file in &files {
        let source = std::fs::read_to_string(file).expect("a readable program");
        let name = file.display().to_string();
        // Programs meant to be rejected, and programs that import others, are not compiled
        // here (the corpus test runs them).
        let Ok(kernels) = dump_stage(&name, &source, Stage::Cuda) else {
            continue;
        };
        if !kernels.contains("__kernel") {
            continue;
        }
        match nvrtc.compile(&kernels) {
            Ok(()) => compiled += 1,
            Err(e) => failures.push(format!(
                "{name}: {}",
                e.chars().take(3000).collect::<String>()
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(compiled > 50, "only {compiled} programs have kernels");
    eprintln!("every_kernel_compiles_as_cuda: {compiled} programs' kernels compiled");
}
