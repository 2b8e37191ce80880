#!/bin/sh
# Installs pplib's C library into a prefix:
#   PREFIX/lib/libpplib.so.VERSION, with links libpplib.so.MAJOR (its SONAME) and libpplib.so
#   PREFIX/include/pplib.h
#   PREFIX/lib/pkgconfig/pplib.pc
#
# Usage: pplib/install.sh [--lib-dir DIR] [PREFIX]
#   PREFIX defaults to $PREFIX, else /usr/local. Without --lib-dir it first builds the
#   library (cargo build --release -p pplib) and takes it from the cargo target directory;
#   with --lib-dir it installs the libpplib.so found in DIR.
#   The installed copy carries no debug information (strip --strip-debug; $STRIP names
#   another strip): the workspace's release builds keep it for its own binaries, which
#   makes the built library ten times the size. Its symbols stay, for profilers.
# Then: cc prog.c $(pkg-config --cflags --libs pplib) (PKG_CONFIG_PATH=PREFIX/lib/pkgconfig
# for a prefix pkg-config does not search).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
lib_dir=
if [ "${1:-}" = "--lib-dir" ]; then
    [ $# -ge 2 ] || { echo "install.sh: --lib-dir needs a directory" >&2; exit 2; }
    lib_dir=$2
    shift 2
fi
prefix=${1:-${PREFIX:-/usr/local}}
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$here/../Cargo.toml" | head -n 1)
major=${version%%.*}
if [ -z "$lib_dir" ]; then
    (cd "$here/.." && cargo build --release -p pplib)
    lib_dir=${CARGO_TARGET_DIR:-$here/../target}/release
fi
[ -f "$lib_dir/libpplib.so" ] || { echo "install.sh: $lib_dir/libpplib.so not found" >&2; exit 1; }
mkdir -p "$prefix/lib/pkgconfig" "$prefix/include"
installed="$prefix/lib/libpplib.so.$version"
if ! "${STRIP:-strip}" --strip-debug -o "$installed" "$lib_dir/libpplib.so"; then
    echo "install.sh: ${STRIP:-strip} failed; installing the library with its debug information" >&2
    cp "$lib_dir/libpplib.so" "$installed"
fi
chmod 755 "$installed"
ln -sf "libpplib.so.$version" "$prefix/lib/libpplib.so.$major"
ln -sf "libpplib.so.$major" "$prefix/lib/libpplib.so"
# pplib builds no static library: one left by an older install would not match the header.
rm -f "$prefix/lib/libpplib.a"
cp "$here/include/pplib.h" "$prefix/include/pplib.h"
sed -e "s|@PREFIX@|$prefix|" -e "s|@VERSION@|$version|" "$here/pplib.pc.in" \
    > "$prefix/lib/pkgconfig/pplib.pc"
echo "installed pplib $version into $prefix"
