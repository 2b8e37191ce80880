//! The C ABI: `examples/c/omp_loop.c` (C + OpenMP, instrumented through `include/pplib.h`)
//! is compiled with `gcc -fopenmp` against the `libpplib.so` cargo built for this test run,
//! run with 2 OpenMP threads, and its log is read back; `tests/c/abi_edges.c` exercises the
//! ABI's error paths.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{assert_nested, read};

/// The directory holding the `libpplib.so` built with this test binary: `deps/` next to it
/// (cargo builds the library's cdylib alongside the rlib the test links), else its parent.
/// The link named by the library's SONAME (`libpplib.so.0`, what linked programs load) is
/// made beside it.
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap().to_path_buf();
    for dir in [deps.clone(), deps.parent().unwrap().to_path_buf()] {
        if dir.join("libpplib.so").exists() {
            match std::os::unix::fs::symlink("libpplib.so", dir.join("libpplib.so.0")) {
                Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => panic!("{e}"),
                _ => return dir,
            }
        }
    }
    panic!("libpplib.so not found next to {}", exe.display());
}

/// A command running `exe` against the library in `lib` (cargo's test environment sets
/// `LD_LIBRARY_PATH` to directories that may hold an older copy of the library).
fn run_with(exe: &Path, lib: &Path) -> Command {
    let mut cmd = Command::new(exe);
    cmd.env("LD_LIBRARY_PATH", lib);
    cmd
}

fn have_gcc_openmp(dir: &Path) -> bool {
    let probe = dir.join("probe.c");
    std::fs::write(
        &probe,
        "#include <omp.h>\nint main(void){return omp_get_max_threads() < 1;}\n",
    )
    .unwrap();
    Command::new("gcc")
        .args(["-fopenmp", "-o"])
        .arg(dir.join("probe"))
        .arg(&probe)
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn c_openmp_example_records_a_readable_log() {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    if !have_gcc_openmp(dir.path()) {
        eprintln!("SKIPPED: gcc with OpenMP (-fopenmp) is not installed");
        return;
    }
    let lib = library_dir();
    let exe = dir.path().join("omp_loop");
    let out = Command::new("gcc")
        .args(["-O2", "-Wall", "-Werror", "-fopenmp"])
        .arg("-I")
        .arg(manifest.join("include"))
        .arg(manifest.join("examples/c/omp_loop.c"))
        .arg("-L")
        .arg(&lib)
        .arg("-lpplib")
        .arg(format!("-Wl,--disable-new-dtags,-rpath,{}", lib.display()))
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "gcc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Disabled (no PPLIB_LOG): runs, records nothing.
    let plain = run_with(&exe, &lib)
        .arg("20")
        .env_remove("PPLIB_LOG")
        .env("OMP_NUM_THREADS", "2")
        .output()
        .unwrap();
    assert!(plain.status.success());
    assert!(String::from_utf8_lossy(&plain.stdout).starts_with("n=20 sum="));

    let log = dir.path().join("omp.pplog");
    let run = run_with(&exe, &lib)
        .arg("40")
        .env("PPLIB_LOG", &log)
        .env("PPLIB_PROCESSORS", "2")
        .env("OMP_NUM_THREADS", "2")
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // Same result as the unrecorded run with the same n.
    let unrecorded = run_with(&exe, &lib)
        .arg("40")
        .env_remove("PPLIB_LOG")
        .env("OMP_NUM_THREADS", "2")
        .output()
        .unwrap();
    assert_eq!(run.stdout, unrecorded.stdout);

    // Without PPLIB_PROCESSORS, p is the OpenMP team size, not the number of CPUs.
    for team in ["1", "3"] {
        let team_log = dir.path().join(format!("team{team}.pplog"));
        let out = run_with(&exe, &lib)
            .arg("8")
            .env("PPLIB_LOG", &team_log)
            .env_remove("PPLIB_PROCESSORS")
            .env("OMP_NUM_THREADS", team)
            .output()
            .unwrap();
        assert!(out.status.success());
        let (reader, _) = read(&team_log);
        assert_eq!(reader.header().processors.to_string(), team);
    }

    let (reader, threads) = read(&log);
    assert_eq!(reader.header().processors, 2);
    assert_eq!(
        reader.header().process.command_line[0],
        exe.to_string_lossy()
    );
    assert_eq!(threads.len(), 2, "two OpenMP threads");
    let main = &threads[0].text;
    assert_eq!(
        main[..5],
        [
            "session_begin",
            "frag_begin init",
            "frag_end init",
            "frag_begin loop",
            "par_begin"
        ]
    );
    assert_eq!(
        main[main.len() - 5..],
        [
            "wait_begin barrier",
            "wait_end",
            "par_end",
            "frag_end loop",
            "session_end"
        ]
    );
    let tasks: usize = threads
        .iter()
        .map(|t| t.text.iter().filter(|e| *e == "task_begin").count())
        .sum();
    assert_eq!(tasks, 40);
    for t in &threads {
        assert_nested(&t.text);
        assert_eq!(
            t.text.iter().filter(|e| *e == "wait_begin barrier").count(),
            1
        );
    }
    // The other OpenMP thread: its share of the iterations (possibly none on a loaded
    // machine, with dynamic scheduling), then the barrier.
    let worker = &threads[1].text;
    assert!(
        worker[..worker.len() - 2]
            .chunks(2)
            .all(|p| p == ["task_begin", "task_end"]),
        "{worker:?}"
    );
    assert_eq!(
        worker[worker.len() - 2..],
        ["wait_begin barrier", "wait_end"]
    );
}

#[test]
fn c_abi_edge_cases() {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    if !have_gcc_openmp(dir.path()) {
        eprintln!("SKIPPED: gcc with OpenMP (-fopenmp) is not installed");
        return;
    }
    let lib = library_dir();
    let exe = dir.path().join("abi_edges");
    let out = Command::new("gcc")
        .args(["-O2", "-Wall", "-Werror"])
        .arg("-I")
        .arg(manifest.join("include"))
        .arg(manifest.join("tests/c/abi_edges.c"))
        .arg("-L")
        .arg(&lib)
        .arg("-lpplib")
        .arg(format!("-Wl,--disable-new-dtags,-rpath,{}", lib.display()))
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "gcc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = dir.path().join("edges.pplog");
    let run = run_with(&exe, &lib)
        .arg(&log)
        .env_remove("PPLIB_LOG")
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let (reader, threads) = read(&log);
    assert_eq!(reader.header().processors, 3);
    assert_eq!(threads.len(), 1);
    assert_eq!(
        threads[0].text,
        [
            "session_begin",
            "frag_begin edges",
            "task_begin",
            "task_end wasted",
            "wait_begin io",
            "wait_end",
            "frag_end edges",
            "session_end"
        ]
    );
}
