//! C packaging: `install.sh` puts the library this test run built (with its SONAME), the
//! header and a pkg-config file into a prefix; a C program built with the flags
//! `pkg-config` gives for that prefix (the README's two commands) runs against the
//! installed library alone and records a readable log.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The directory holding the `libpplib.so` built with this test binary.
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap().to_path_buf();
    for dir in [deps.clone(), deps.parent().unwrap().to_path_buf()] {
        if dir.join("libpplib.so").exists() {
            return dir;
        }
    }
    panic!("libpplib.so not found next to {}", exe.display());
}

/// True if `strip` (binutils) runs here.
fn strip_available() -> bool {
    Command::new("strip")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The names of an ELF file's sections that hold DWARF debug information.
fn debug_sections(elf: &goblin::elf::Elf) -> Vec<String> {
    elf.section_headers
        .iter()
        .filter_map(|s| elf.shdr_strtab.get_at(s.sh_name))
        .filter(|name| name.starts_with(".debug_"))
        .map(str::to_owned)
        .collect()
}

fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

fn pkg_config(prefix: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("pkg-config")
        .args(args)
        .arg("pplib")
        .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig"))
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "pkg-config {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).unwrap().trim().to_owned())
}

#[test]
fn install_puts_library_header_and_pkg_config_file_in_a_prefix() {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("prefix");
    // An older install's static library, which pplib no longer builds: removed.
    std::fs::create_dir_all(prefix.join("lib")).unwrap();
    std::fs::write(prefix.join("lib/libpplib.a"), "stale").unwrap();
    let out = Command::new("sh")
        .arg(manifest.join("install.sh"))
        .arg("--lib-dir")
        .arg(library_dir())
        .arg(&prefix)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "install.sh: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    let lib = prefix.join("lib");
    let real = lib.join(format!("libpplib.so.{}", version()));
    let major = version().split('.').next().unwrap();
    assert_eq!(
        std::fs::read_link(lib.join(format!("libpplib.so.{major}"))).unwrap(),
        PathBuf::from(format!("libpplib.so.{}", version()))
    );
    assert_eq!(
        std::fs::read_link(lib.join("libpplib.so")).unwrap(),
        PathBuf::from(format!("libpplib.so.{major}"))
    );
    assert!(!lib.join("libpplib.a").exists());
    assert_eq!(
        std::fs::read(prefix.join("include/pplib.h")).unwrap(),
        std::fs::read(manifest.join("include/pplib.h")).unwrap()
    );
    // The SONAME (build.rs) is the name of the middle link, which linked programs load.
    let bytes = std::fs::read(&real).unwrap();
    let elf = goblin::elf::Elf::parse(&bytes).unwrap();
    assert_eq!(elf.soname, Some(format!("libpplib.so.{major}").as_str()));
    // The OpenMP tool's entry point is exported.
    assert!(elf
        .dynsyms
        .iter()
        .any(|s| elf.dynstrtab.get_at(s.st_name) == Some("ompt_start_tool")));
    // Installed without the debug information the workspace's release profile keeps
    // (`debug = 1`), which is most of the built library, and with its symbol table.
    let built = std::fs::read(library_dir().join("libpplib.so")).unwrap();
    let built_elf = goblin::elf::Elf::parse(&built).unwrap();
    if strip_available() {
        assert_eq!(debug_sections(&elf), Vec::<String>::new());
        assert!(!elf.syms.is_empty());
        if !debug_sections(&built_elf).is_empty() {
            assert!(
                bytes.len() * 2 < built.len(),
                "installed {} bytes, built {} bytes",
                bytes.len(),
                built.len()
            );
        }
    } else {
        eprintln!("SKIPPED (the debug information check): strip is not installed");
    }

    let pc = std::fs::read_to_string(lib.join("pkgconfig/pplib.pc")).unwrap();
    assert!(pc.contains(&format!("Version: {}", version())), "{pc}");
    let Some(flags) = pkg_config(&prefix, &["--cflags", "--libs"]) else {
        eprintln!("SKIPPED (the compile step): pkg-config is not installed");
        return;
    };
    assert!(flags.contains("-lpplib"), "{flags}");

    // The README's second command, with the example program of the C ABI.
    let exe = dir.path().join("omp_loop");
    let cflags = pkg_config(&prefix, &["--cflags"]).unwrap();
    let libs = pkg_config(&prefix, &["--libs"]).unwrap();
    let built = Command::new("sh")
        .arg("-c")
        .arg(format!("gcc -O2 -fopenmp \"$1\" {cflags} {libs} -o \"$2\""))
        .arg("sh")
        .arg(manifest.join("examples/c/omp_loop.c"))
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "gcc: {}",
        String::from_utf8_lossy(&built.stderr)
    );
    let log = dir.path().join("installed.pplog");
    let run = Command::new(&exe)
        .arg("20")
        .env("LD_LIBRARY_PATH", &lib)
        .env("OMP_NUM_THREADS", "2")
        .env("PPLIB_PROCESSORS", "2")
        .env("PPLIB_LOG", &log)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let reader = pplib::log::LogReader::open(&log).unwrap();
    assert_eq!(reader.header().processors, 2);
}
