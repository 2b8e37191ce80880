//! Gives the shared library (cdylib) a SONAME, `libpplib.so.MAJOR`: programs linked
//! against it record that name and load any compatible build of it. `install.sh` installs
//! the library under that name with the usual links.

fn main() {
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").unwrap_or_else(|_| "0".into());
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libpplib.so.{major}");
    println!("cargo:rerun-if-changed=build.rs");
}
