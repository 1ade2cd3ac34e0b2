#!/usr/bin/env bash
# Runs INSIDE the Debian 11 build root (build_linux.sh calls it): build CPython from Debian's own
# python3.11 source package, so every object is linked against Debian 11's glibc (2.31) and libraries.
#
#   build_python.sh VERSION OUT.tar.gz     VERSION: the Debian source version (apt-cache showsrc)
#   exit 3: the mirror does not serve that version's source (the caller tries an older one)
#
# Debian's layout patches (deb-locations, multiarch, dist-packages schemes, ensurepip-disabled, ...)
# assume /usr and Debian's own rules file, so the source is unpacked without them and only the
# upstream fixes Debian carries (CVE-*, the 3.11 branch backports, crash fixes) are applied.  No PGO:
# profile runs of the test suite would triple the build time on 2 cores for a calculator whose
# start-up is dominated by loading Qt.  Debug info is stripped (PyInstaller bundles libpython as is).
set -euo pipefail

VERSION="$1"
OUT="$2"
PREFIX=/opt/occupancy-python
SRC=/build/python-src

rm -rf /build/python-dl "$SRC" "$PREFIX"
mkdir -p /build/python-dl
cd /build/python-dl
apt-get source -q --download-only "python3.11=$VERSION" >/dev/null 2>&1 || exit 3
dpkg-source -q -x --skip-patches ./*.dsc "$SRC" 2>/dev/null
cd "$SRC"
applied=0
while read -r patch; do
    patch -p1 -s -N <"debian/patches/$patch"
    applied=$((applied + 1))
done < <(grep -E '^(CVE-|0[0-9]{3}-3\.11-|relfile-|shutdown-deadlock|frame_dealloc-crash)' debian/patches/series)
echo "build_python: python3.11 $VERSION, $applied of Debian's upstream-fix patches applied"
# Debian links pyexpat into the interpreter (Py_BUILD_CORE_BUILTIN); its CVE-2026-4224 backport then
# includes an internal header, which a shared pyexpat module may only do as a core module (3.12's form).
if grep -q 'pycore_' Modules/pyexpat.c && ! grep -q 'Py_BUILD_CORE_MODULE' Modules/pyexpat.c; then
    sed -i '1i #ifndef Py_BUILD_CORE_BUILTIN\n#  define Py_BUILD_CORE_MODULE 1\n#endif' Modules/pyexpat.c
fi

./configure -q --prefix="$PREFIX" --enable-shared --with-ensurepip=no \
    LDFLAGS="-Wl,-rpath,$PREFIX/lib" >/dev/null
make -j"$(nproc)" -s >/build/python-make.log 2>&1 || { tail -n 30 /build/python-make.log; exit 1; }
make -s install >/dev/null 2>&1
# The modules Python builds only when their library is there: fail here rather than in the bundle.
"$PREFIX/bin/python3.11" -c 'import ssl, ctypes, lzma, bz2, zlib, sqlite3, uuid, readline, pyexpat, decimal; print("build_python:", ssl.OPENSSL_VERSION)'
find "$PREFIX" -name '*.so*' -type f -exec strip --strip-debug {} +
strip --strip-debug "$PREFIX/bin/python3.11"
rm -rf "$PREFIX/lib/python3.11/test" "$PREFIX/lib/python3.11/idlelib/idle_test"
echo "$VERSION" >"$PREFIX/DEBIAN_SOURCE_VERSION"
tar -C / -czf "$OUT" "${PREFIX#/}"
rm -rf /build/python-dl "$SRC"
