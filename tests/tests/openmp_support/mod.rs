//! What the OpenMP tests share: the `libpplib.so` of this build, LLVM's libomp (or a skip
//! without it) and the command-line tools a user runs. Each test file uses a part of it,
//! hence `dead_code` is allowed here.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

/// The `libpplib.so` cargo built for this test run (in `deps/`, next to the test binary, or
/// its parent), with the link named by its SONAME (`libpplib.so.0`) beside it, which
/// programs linked against it load.
pub fn library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap().to_path_buf();
    for dir in [deps.clone(), deps.parent().unwrap().to_path_buf()] {
        let lib = dir.join("libpplib.so");
        if lib.exists() {
            match std::os::unix::fs::symlink("libpplib.so", dir.join("libpplib.so.0")) {
                Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => panic!("{e}"),
                _ => return lib,
            }
        }
    }
    panic!("libpplib.so not found next to {}", exe.display());
}

/// LLVM's libomp, as a program built with `clang -fopenmp` loads it (None: clang or
/// libomp missing).
pub fn libomp() -> Option<PathBuf> {
    static FOUND: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    FOUND
        .get_or_init(|| {
            let dir = tempfile::tempdir().ok()?;
            let probe = dir.path().join("probe.c");
            std::fs::write(
                &probe,
                "#include <omp.h>\nint main(void){return omp_get_max_threads() < 1;}\n",
            )
            .ok()?;
            let exe = dir.path().join("probe");
            let built = Command::new("clang")
                .arg("-fopenmp")
                .arg(&probe)
                .arg("-o")
                .arg(&exe)
                .output()
                .ok()?;
            if !built.status.success() {
                return None;
            }
            // `ldd` prints `libomp.so.5 => /usr/lib/x86_64-linux-gnu/libomp.so.5 (0x...)`.
            let ldd = Command::new("ldd").arg(&exe).output().ok()?;
            String::from_utf8_lossy(&ldd.stdout).lines().find_map(|l| {
                let (name, rest) = l.trim().split_once(" => ")?;
                let path = rest.split_whitespace().next()?;
                name.starts_with("libomp").then(|| PathBuf::from(path))
            })
        })
        .clone()
}
