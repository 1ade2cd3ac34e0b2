#!/usr/bin/env bash
# Build the Linux installers from a clean checkout:
#
#   dist/occupancy-gui_<version>_<arch>.deb              Debian/Ubuntu: /opt/occupancy-gui, /usr/bin launchers,
#                                                         .desktop entry, hicolor icons, MIME types
#   dist/occupancy-gui-<version>-1.<machine>.rpm         Fedora/RHEL/Rocky/Alma/openSUSE: the same files
#   dist/occupancy-gui-<version>-linux-<machine>.tar.gz  the same bundle, portable (unpack and run)
#
# The bundle is frozen inside a Debian 11 root (glibc 2.31) made with debootstrap, with a CPython
# built there from Debian's python3.11 source package, so it runs on glibc 2.31 and later.  The
# roots and the built Python are cached (see packaging/linux/debian_root.sh): from a cold cache the
# first build adds about 3 minutes for the root, 2 for its packages and 7 for Python (2 cores); a
# warm build is then mostly PyInstaller (about 2 minutes) and the three packages' compression.
#
# Usage:  sudo packaging/build_linux.sh     (from anywhere; paths are relative to the checkout)
# Needs:  root, debootstrap (installed on first use), dpkg-deb, rpmbuild (apt-get install rpm),
#         tar, objdump, and access to Debian's mirror and the Python package registry.
# Env:    BUILD_SUITE  Debian suite of the build root               (default: bullseye)
#         HOST_BUILD=1 freeze with the host's python3 instead (no root needed; the glibc floor is then
#                      the host's); PYTHON / BUILD_VENV pick that interpreter and venv
#         SKIP_SMOKE=1 do not run the frozen bundle's --self-test before packaging
#         MAINTAINER   the packages' Maintainer/Packager (default: a placeholder to replace before publishing)
#         PKG_CACHE, DEBIAN_MIRROR, REFRESH_ROOTS: see packaging/linux/debian_root.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
START=$(date +%s)
PYINSTALLER_VERSION="6.22.3"
BUILD_SUITE="${BUILD_SUITE:-bullseye}"
PYTHON_SOURCE_SUITE="bookworm"  # the python3.11 source package is taken from here
BUNDLE_PYSIDE6="${BUNDLE_PYSIDE6:-6.9.3}"  # the newest PySide6-Essentials with manylinux_2_28 wheels
WORK="$ROOT/build/pyinstaller"
STAGE="$ROOT/build/deb-root"
DIST="$ROOT/dist"
APP="occupancy-gui"
VERSION="$(sed -n 's/^__version__ = "\(.*\)"/\1/p' occupancy_gui/__init__.py)"
DEB_ARCH="$(dpkg --print-architecture 2>/dev/null || echo amd64)"
MACHINE="$(uname -m)"
MAINTAINER="${MAINTAINER:-occupancy_gui maintainers <maintainers@example.invalid>}"
BUNDLE="$WORK/dist/$APP"

# Each stage's heading says the time since the start and how long the stage before it took.
LAST_STAGE=$START
say() {
    local now; now=$(date +%s)
    printf '\n== %s  (+%d s; stage before: %d s)\n' "$*" "$(( now - START ))" "$(( now - LAST_STAGE ))"
    LAST_STAGE=$now
}
die() { echo "build_linux: $*" >&2; exit 1; }

# Packages of the build root: compilers and CPython's build dependencies, plus the runtime libraries
# PyInstaller collects next to Qt's plugins (xcb, xkbcommon, fontconfig, freetype, glib, dbus) so the
# bundle carries Debian 11's copies, and GL/EGL so the smoke test can render offscreen.
BUILD_PKGS=(
    build-essential dpkg-dev pkg-config ca-certificates binutils patch file
    libssl-dev libffi-dev zlib1g-dev libbz2-dev liblzma-dev libsqlite3-dev libexpat1-dev uuid-dev
    libncursesw5-dev libreadline-dev
    libfontconfig1 libfreetype6 fontconfig-config fonts-dejavu-core libglib2.0-0 libdbus-1-3 libpng16-16
    libx11-6 libx11-xcb1 libxcb1 libxcb-cursor0 libxcb-glx0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1
    libxcb-randr0 libxcb-render0 libxcb-render-util0 libxcb-shape0 libxcb-shm0 libxcb-sync1 libxcb-util1
    libxcb-xfixes0 libxcb-xkb1 libxkbcommon0 libxkbcommon-x11-0
    libgl1 libegl1 libopengl0 libwayland-client0 libwayland-cursor0 libwayland-egl1 libdrm2
)

# The app's pinned runtime dependencies from pyproject.toml.
read_deps() {
    python3 - <<'EOF'
import tomllib
with open("pyproject.toml", "rb") as f:
    print("\n".join(tomllib.load(f)["project"]["dependencies"]))
EOF
}

# --- HOST_BUILD=1: freeze with the host's Python (the floor is the host's glibc) -----------------------
host_bundle() {
    local python="${PYTHON:-python3}" venv="${BUILD_VENV:-$ROOT/build/pyinstaller-venv}"
    say "build venv $venv (host Python: the glibc floor will be this host's)"
    [[ -x "$venv/bin/python" ]] || "$python" -m venv "$venv"
    mapfile -t DEPS < <(read_deps)
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "pyinstaller==$PYINSTALLER_VERSION" "${DEPS[@]}"
    QT_VERSION="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("PySide6-Essentials"))')"
    say "PyInstaller bundle"
    rm -rf "$WORK"
    "$venv/bin/pyinstaller" --noconfirm --clean --log-level WARN \
        --distpath "$WORK/dist" --workpath "$WORK/work" packaging/occupancy_gui.spec
    if [[ "${SKIP_SMOKE:-0}" != 1 ]]; then
        say "frozen bundle smoke test"
        env -u DISPLAY -u WAYLAND_DISPLAY QT_QPA_PLATFORM=offscreen "$BUNDLE/$APP" --self-test
        "$BUNDLE/occupancy" calc --device sm_100 --threads 256 --registers 64 --static-smem 24KiB | head -n 1
    fi
}

# --- default: freeze inside a cached Debian 11 root ---------------------------------------------------
# The build root: a pristine $BUILD_SUITE root plus BUILD_PKGS and a deb-src entry for the Python
# source suite, cached under a key of its package list.
build_root() {
    local key dest
    key="$(printf '%s\n' "$BUILD_SUITE" "$PYTHON_SOURCE_SUITE" "${BUILD_PKGS[@]}" | sha256sum | cut -c1-12)"
    dest="$PKG_CACHE/build-root/$BUILD_SUITE-$key"
    if [[ ! -f "$dest/.complete" ]]; then
        say "build root $dest (once; cached)" >&2
        local t0=$SECONDS
        fresh_root "$BUILD_SUITE" "$dest.partial" >&2
        # deb822, signed by the same keyring as the host's entry (Debian 11's keyring holds 12's keys).
        cat > "$dest.partial/etc/apt/sources.list.d/python-source.sources" <<EOF
Types: deb-src
URIs: $DEBIAN_MIRROR
Suites: $PYTHON_SOURCE_SUITE $PYTHON_SOURCE_SUITE-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
        in_root "$dest.partial" bash -c 'apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "$@" >/dev/null' \
            _ "${BUILD_PKGS[@]}" >&2 || die "installing the build root's packages failed"
        echo "$key" > "$dest.partial/.complete"
        rm -rf "$dest" && mv "$dest.partial" "$dest"
        echo "build root made in $((SECONDS - t0)) s" >&2
    fi
    cp /etc/resolv.conf "$dest/etc/resolv.conf"
    echo "$dest"
}

# CPython in the build root at /opt/occupancy-python, built once per (Debian source version, build
# script, build root) and cached as a tarball named by that key.  The newest source version the
# mirror serves is taken; a version listed in the index but not served (404) is skipped.
root_python() {  # build-root
    local broot="$1" version key tarball status
    in_root "$broot" apt-get update -q >/dev/null || echo "build_linux: apt-get update failed in the build root; using its old lists" >&2
    mkdir -p "$PKG_CACHE/python"
    for version in $(in_root "$broot" apt-cache showsrc python3.11 | sed -n 's/^Version: //p' | sort -V -r -u); do
        key="$(cat packaging/linux/build_python.sh "$broot/.complete" <(echo "$version") | sha256sum | cut -c1-16)"
        tarball="$PKG_CACHE/python/python3.11_$version-$key.tar.gz"
        if [[ ! -f "$tarball" ]]; then
            say "CPython from Debian's python3.11 $version (once per source version; cached)"
            local t0=$SECONDS
            status=0
            cp packaging/linux/build_python.sh "$broot/build-python.sh"
            BIND="$PKG_CACHE/python:/cache" in_root "$broot" bash /build-python.sh "$version" "/cache/${tarball##*/}.partial" \
                || status=$?
            [[ $status == 3 ]] && { echo "python3.11 $version is not served by the mirror; trying the next" >&2; continue; }
            [[ $status == 0 ]] || die "building CPython from python3.11 $version failed (exit $status)"
            mv "$tarball.partial" "$tarball"
            echo "CPython built in $((SECONDS - t0)) s"
        fi
        if [[ "$(cat "$broot/opt/occupancy-python/.key" 2>/dev/null)" != "$key" ]]; then
            rm -rf "$broot/opt/occupancy-python" "$broot/build/venv"
            tar -C "$broot" -xzf "$tarball"
            echo "$key" > "$broot/opt/occupancy-python/.key"
        fi
        echo "CPython $(cat "$broot/opt/occupancy-python/DEBIAN_SOURCE_VERSION") (Debian source), cache key $key"
        return 0
    done
    die "no python3.11 source version could be fetched from $DEBIAN_MIRROR"
}

root_bundle() {
    # shellcheck source=packaging/linux/debian_root.sh
    source packaging/linux/debian_root.sh
    need_root_tools
    local broot
    broot="$(build_root)"
    root_python "$broot"

    say "build venv (in the $BUILD_SUITE root)"
    mapfile -t DEPS < <(read_deps)
    # PySide6-Essentials 6.10's wheels are manylinux_2_34 (Qt 6.10 imports glibc 2.34's pthread_*,
    # dlsym, close_range), so they cannot run below glibc 2.34 and pip will not install them here.
    # The bundle takes the newest manylinux_2_28 release instead; the checks run it on Debian 11-13.
    local pin
    for i in "${!DEPS[@]}"; do
        if [[ "${DEPS[$i]}" == PySide6-Essentials==* ]]; then
            pin="${DEPS[$i]#*==}"
            DEPS[$i]="PySide6-Essentials==$BUNDLE_PYSIDE6"
            echo "PySide6-Essentials $BUNDLE_PYSIDE6 in the bundle (pyproject.toml pins $pin: manylinux_2_34 wheels)"
        fi
    done
    [[ -x "$broot/build/venv/bin/python" ]] || in_root "$broot" /opt/occupancy-python/bin/python3.11 -m venv /build/venv
    in_root "$broot" /build/venv/bin/python -m pip install -q "pyinstaller==$PYINSTALLER_VERSION" "${DEPS[@]}"
    QT_VERSION="$BUNDLE_PYSIDE6"

    say "PyInstaller bundle (in the $BUILD_SUITE root)"
    rm -rf "$WORK"
    mkdir -p "$WORK"
    BIND="$ROOT:/src" in_root "$broot" bash -c 'cd /src && /build/venv/bin/pyinstaller --noconfirm --clean --log-level WARN \
        --distpath /src/build/pyinstaller/dist --workpath /src/build/pyinstaller/work packaging/occupancy_gui.spec'
    if [[ "${SKIP_SMOKE:-0}" != 1 ]]; then
        say "frozen bundle smoke test (in the $BUILD_SUITE root, glibc $(in_root "$broot" ldd --version | head -n 1 | awk '{print $NF}'))"
        BIND="$ROOT:/src" in_root "$broot" env QT_QPA_PLATFORM=offscreen "/src/build/pyinstaller/dist/$APP/$APP" --self-test
        BIND="$ROOT:/src" in_root "$broot" "/src/build/pyinstaller/dist/$APP/occupancy" calc --device sm_100 --threads 256 \
            --registers 64 --static-smem 24KiB | head -n 1
    fi
    BUILD_ROOT_DIR="$broot"
}

BUILD_ROOT_DIR=""
QT_VERSION=""
if [[ "${HOST_BUILD:-0}" == 1 ]]; then host_bundle; else root_bundle; fi
test -x "$BUNDLE/$APP" && test -x "$BUNDLE/occupancy" || die "PyInstaller made no $BUNDLE/$APP and occupancy"

# The bundle's ELF files (executables and shared objects).
bundle_elves() {
    find "$BUNDLE" -type f \( -name '*.so*' -o -perm -u+x \) -print0 | xargs -0 file -N -0 \
        | awk -F '\0' '$2 ~ /ELF/ {print $1}'
}
mapfile -t ELVES < <(bundle_elves)
mapfile -t BUNDLED_NAMES < <(find "$BUNDLE" \( -type f -o -type l \) -name '*.so*' -printf '%f\n' | sort -u)

# The glibc the bundle needs: the newest GLIBC_x.y symbol version any bundled ELF file uses.
GLIBC_MIN="$(printf '%s\0' "${ELVES[@]}" | xargs -0 objdump -T 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' \
    | sed 's/GLIBC_//' | sort -V | tail -n 1)"
GLIBCXX_MIN="$(printf '%s\0' "${ELVES[@]}" | xargs -0 objdump -T 2>/dev/null | grep -o 'GLIBCXX_[0-9][0-9.]*' \
    | sed 's/GLIBCXX_//' | sort -V | tail -n 1)"
# Shared libraries the bundle needs from the system: every DT_NEEDED that no bundled file provides.
SYSTEM_SONAMES="$(printf '%s\0' "${ELVES[@]}" | xargs -0 objdump -p 2>/dev/null | awk '$1 == "NEEDED" {print $2}' | sort -u \
    | grep -vxF -f <(printf '%s\n' "${BUNDLED_NAMES[@]}") | tr '\n' ' ')"
echo "bundle needs glibc >= $GLIBC_MIN, libstdc++ GLIBCXX >= $GLIBCXX_MIN (built in: ${BUILD_ROOT_DIR:-this host, $(ldd --version | head -n 1)})"
echo "system libraries it loads: $SYSTEM_SONAMES"

# The .deb's libstdc++6 floor: the package version Debian's symbols file gives for that GLIBCXX
# (read from the build root, or the host), as dpkg-shlibdeps would.
SYMBOLS="${BUILD_ROOT_DIR:-}/var/lib/dpkg/info/libstdc++6:$DEB_ARCH.symbols"
STDCXX_MIN="$(awk -v v="GLIBCXX_$GLIBCXX_MIN" '$1 == v"@"v {print $2; exit}' "$SYMBOLS" 2>/dev/null || true)"
[[ -n "$STDCXX_MIN" ]] || STDCXX_MIN=10
# Each system library must come from a package the .deb depends on or recommends.
DEB_DEPENDS="libc6 (>= $GLIBC_MIN), libstdc++6 (>= $STDCXX_MIN), libgcc-s1, libgl1, libegl1, libxcb1, libdrm2, libwayland-client0, fontconfig-config"
DEB_RECOMMENDS="libwayland-cursor0, libwayland-egl1, fonts-dejavu-core | fonts-liberation2 | fonts-noto-core"
if [[ -n "$BUILD_ROOT_DIR" ]]; then
    for soname in $SYSTEM_SONAMES; do
        owner="$(in_root "$BUILD_ROOT_DIR" dpkg -S "/usr/lib/$MACHINE-linux-gnu/$soname" "/lib/$MACHINE-linux-gnu/$soname" 2>/dev/null \
            | head -n 1 | cut -d: -f1 || true)"
        [[ -n "$owner" ]] || die "no $BUILD_SUITE package provides $soname, which the bundle needs"
        tr ',|' '\n\n' <<<"$DEB_DEPENDS, $DEB_RECOMMENDS" | sed 's/(.*)//; s/ //g' | grep -qxF "$owner" \
            || die "the bundle needs $soname (package $owner), which is neither in Depends nor Recommends"
    done
fi

# --- the .deb: /opt/occupancy-gui, /usr/bin symlinks, desktop entry, icons, MIME types, docs ----------
say "deb package"
rm -rf "$STAGE"
mkdir -p "$STAGE/DEBIAN" "$STAGE/opt" "$STAGE/usr/bin" "$STAGE/usr/share/applications" \
    "$STAGE/usr/share/mime/packages" "$STAGE/usr/share/doc/$APP"
cp -a "$BUNDLE" "$STAGE/opt/$APP"
ln -s "/opt/$APP/$APP" "$STAGE/usr/bin/$APP"
ln -s "/opt/$APP/occupancy" "$STAGE/usr/bin/occupancy"
install -m 644 packaging/linux/occupancy-gui.desktop "$STAGE/usr/share/applications/$APP.desktop"
install -m 644 packaging/linux/occupancy-gui-mime.xml "$STAGE/usr/share/mime/packages/$APP.xml"
install -m 644 packaging/linux/copyright "$STAGE/usr/share/doc/$APP/copyright"
for size in 16 24 32 48 64 128 256; do
    install -D -m 644 "resources/icons/app-$size.png" "$STAGE/usr/share/icons/hicolor/${size}x${size}/apps/$APP.png"
done
install -D -m 644 resources/icons/app.svg "$STAGE/usr/share/icons/hicolor/scalable/apps/$APP.svg"
find "$STAGE" -type d -exec chmod 755 {} +
chmod -R go-w "$STAGE"
INSTALLED_KB="$(du -sk --exclude=DEBIAN "$STAGE" | cut -f1)"
cat > "$STAGE/DEBIAN/control" <<EOF
Package: $APP
Version: $VERSION
Architecture: $DEB_ARCH
Maintainer: $MAINTAINER
Installed-Size: $INSTALLED_KB
Depends: $DEB_DEPENDS
Recommends: $DEB_RECOMMENDS
Section: devel
Priority: optional
Description: exact CUDA occupancy calculator (desktop GUI and CLI)
 Type or import a CUDA kernel's launch and resource figures (threads per block,
 registers, shared memory, barriers), pick a GPU, and see how many blocks and
 warps fit on one SM, which limit binds, and how occupancy moves with each input.
 Reproduces NVIDIA's cuda_occupancy.h bit for bit. Commands: occupancy-gui, occupancy.
 Self-contained PyInstaller bundle (Python, Qt $QT_VERSION, numpy) under /opt/occupancy-gui.
EOF
mkdir -p "$DIST"
DEB="$DIST/${APP}_${VERSION}_${DEB_ARCH}.deb"
rm -f "$DIST/${APP}_"*.deb "$DIST/$APP-"*.rpm "$DIST/$APP-"*-linux-*.tar.gz
echo "Depends: $DEB_DEPENDS"

# --- the .rpm: the same tree; requirements found by rpm's own ELF scan, minus what the bundle carries -
if ! command -v rpmbuild >/dev/null && [[ $(id -u) == 0 ]]; then
    echo "installing rpm (Debian's package provides rpmbuild)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q rpm >/dev/null
fi
RPMTOP="$WORK/rpm"
rm -rf "$RPMTOP" && mkdir -p "$RPMTOP"
build_rpm() {
    # The bundle's own sonames, as a regex rpm drops from the scanned Requires (and it provides none).
    local bundled_re
    bundled_re="^($(printf '%s\n' "${BUNDLED_NAMES[@]}" | sed 's/[.+]/\\&/g' | paste -sd '|'))"
    rpmbuild -bb --quiet packaging/linux/occupancy-gui.rpm.spec \
        --define "_topdir $RPMTOP" --define "stage $STAGE" --define "app_version $VERSION" \
        --define "packager $MAINTAINER" --define "bundled_re $bundled_re" \
        --define "_rpmdir $RPMTOP/out" --define "_build_id_links none"
}

# --- the portable tarball: the bundle plus the desktop files and a per-user installer for them -------
TARNAME="$APP-$VERSION-linux-$MACHINE"
TARDIR="$WORK/tar/$TARNAME"
rm -rf "$WORK/tar" && mkdir -p "$TARDIR"
cp -a "$BUNDLE/." "$TARDIR/"
mkdir -p "$TARDIR/share"
cp -a "$STAGE/usr/share/applications" "$STAGE/usr/share/mime" "$STAGE/usr/share/icons" "$TARDIR/share/"
install -m 755 packaging/linux/install-desktop-entry.sh "$TARDIR/install-desktop-entry.sh"
TARBALL="$DIST/$TARNAME.tar.gz"

# Compression is most of a warm build: xz at dpkg's default level 6 took 143 CPU-s for the 209 MB
# bundle here, and the .rpm's payload as much again.  Measured on that bundle (xz -T1, 2 cores):
#   xz -6: 56.4 MB, 143 s   xz -4: 58.0 MB, 102 s   xz -3: 60.8 MB, 67 s   xz -2: 61.4 MB, 43 s
#   zstd -19 --long: 60.3 MB, 179 s   zstd -15 --long: 66.7 MB, 54 s   gzip -6: 78.0 MB, 13 s
# so the .deb takes xz -4 (Debian 11's dpkg reads no zstd) and the .rpm xz -2 (its spec), and the
# three run side by side (dpkg-deb and rpm's xz use every free core).  Each job's time is logged.
DEB_XZ_LEVEL="${DEB_XZ_LEVEL:-4}"
timed() {  # label log command...: run the command, output to log, then append its wall time to the log
    local label="$1" log="$2" t0=$SECONDS status=0
    shift 2
    "$@" >"$log" 2>&1 || status=$?
    echo "$label: $((SECONDS - t0)) s" >>"$log"
    return "$status"
}
say "deb, rpm and tar.gz packages (compressed in parallel)"
timed deb "$WORK/deb.log" dpkg-deb --root-owner-group -Zxz -z"$DEB_XZ_LEVEL" --build "$STAGE" "$DEB" &
DEB_JOB=$!
RPM_JOB=""
if command -v rpmbuild >/dev/null; then timed rpm "$WORK/rpm.log" build_rpm & RPM_JOB=$!; fi
timed tar.gz "$WORK/tar.log" tar -C "$WORK/tar" --owner=0 --group=0 --numeric-owner -czf "$TARBALL" "$TARNAME" &
TAR_JOB=$!
wait "$DEB_JOB" || die "dpkg-deb failed: $(tail -n 5 "$WORK/deb.log")"
wait "$TAR_JOB" || die "tar failed: $(tail -n 5 "$WORK/tar.log")"
tail -q -n 1 "$WORK/deb.log" "$WORK/tar.log"
RPM=""
if [[ -n "$RPM_JOB" ]]; then
    wait "$RPM_JOB" || die "rpmbuild failed: $(grep -v 'Could not canonicalize' "$WORK/rpm.log" | tail -n 5)"
    tail -n 1 "$WORK/rpm.log"
    RPM="$(find "$RPMTOP/out" -name "$APP-*.rpm" | head -n 1)"
    [[ -f "$RPM" ]] || die "rpmbuild made no package"
    mv "$RPM" "$DIST/"
    RPM="$DIST/${RPM##*/}"
    echo "Requires: $(rpm -qp --requires "$RPM" 2>/dev/null | grep -v '^rpmlib(' | paste -sd ' ')"
else
    echo "rpmbuild not found (apt-get install rpm): no .rpm built" >&2
fi

say "done in $(( $(date +%s) - START )) s"
printf '%-10s %s\n' bundle "$(du -sh "$BUNDLE" | cut -f1)  $BUNDLE" \
    deb "$(du -h "$DEB" | cut -f1)  $DEB" \
    rpm "${RPM:+$(du -h "$RPM" | cut -f1)  $RPM}" \
    tar.gz "$(du -h "$TARBALL" | cut -f1)  $TARBALL" \
    glibc ">= $GLIBC_MIN"
