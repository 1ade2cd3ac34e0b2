#!/usr/bin/env bash
# Build the Linux installers from a clean checkout, offline apart from pip:
#
#   dist/occupancy-gui_<version>_<arch>.deb            installs /opt/occupancy-gui, /usr/bin launchers,
#                                                       .desktop entry, hicolor icons, MIME types
#   dist/occupancy-gui-<version>-linux-<machine>.tar.gz  the same bundle, portable (unpack and run)
#
# Usage:  packaging/build_linux.sh            (from anywhere; paths are relative to the checkout)
# Needs:  python3 (3.10+, built with --enable-shared, as Debian's and pyenv's --enable-shared are),
#         dpkg-deb, tar, and pip access to the package registry (pinned versions only).
# Env:    PYTHON       interpreter for the build venv            (default: python3)
#         BUILD_VENV   build venv, kept between runs              (default: build/pyinstaller-venv)
#         SKIP_SMOKE=1 do not run the frozen bundle's --self-test before packaging
#         MAINTAINER   the .deb's Maintainer field (default: a placeholder to replace before publishing)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
START=$(date +%s)
PYTHON="${PYTHON:-python3}"
BUILD_VENV="${BUILD_VENV:-$ROOT/build/pyinstaller-venv}"
PYINSTALLER_VERSION="6.22.3"
WORK="$ROOT/build/pyinstaller"
STAGE="$ROOT/build/deb-root"
DIST="$ROOT/dist"
APP="occupancy-gui"
VERSION="$(sed -n 's/^__version__ = "\(.*\)"/\1/p' occupancy_gui/__init__.py)"
DEB_ARCH="$(dpkg --print-architecture 2>/dev/null || echo amd64)"
MACHINE="$(uname -m)"
MAINTAINER="${MAINTAINER:-occupancy_gui maintainers <maintainers@example.invalid>}"

say() { printf '\n== %s\n' "$*"; }

# 1. A separate build venv: PyInstaller plus the app's pinned runtime dependencies from pyproject.toml.
#    The app itself is analysed from this checkout (pathex in the spec), not installed.
say "build venv $BUILD_VENV"
if [[ ! -x "$BUILD_VENV/bin/python" ]]; then
    "$PYTHON" -m venv "$BUILD_VENV"
fi
mapfile -t DEPS < <("$BUILD_VENV/bin/python" - <<'EOF'
import tomllib
with open("pyproject.toml", "rb") as f:
    print("\n".join(tomllib.load(f)["project"]["dependencies"]))
EOF
)
"$BUILD_VENV/bin/python" -m pip install -q --disable-pip-version-check "pyinstaller==$PYINSTALLER_VERSION" "${DEPS[@]}"

# 2. The one-folder bundle (two executables: occupancy-gui and occupancy).
say "PyInstaller bundle"
rm -rf "$WORK"
"$BUILD_VENV/bin/pyinstaller" --noconfirm --clean --log-level WARN \
    --distpath "$WORK/dist" --workpath "$WORK/work" packaging/occupancy_gui.spec
BUNDLE="$WORK/dist/$APP"
test -x "$BUNDLE/$APP" && test -x "$BUNDLE/occupancy"

# 3. Smoke-test the frozen bundle before packaging it.
if [[ "${SKIP_SMOKE:-0}" != 1 ]]; then
    say "frozen bundle smoke test"
    env -u DISPLAY -u WAYLAND_DISPLAY QT_QPA_PLATFORM=offscreen "$BUNDLE/$APP" --self-test
    "$BUNDLE/occupancy" calc --device sm_100 --threads 256 --registers 64 --static-smem 24KiB | head -n 1
fi

# 4. The glibc the bundle needs: the newest GLIBC_x.y symbol version any bundled ELF file uses.
GLIBC_MIN="$(find "$BUNDLE" -type f \( -name '*.so*' -o -perm -u+x \) -print0 \
    | xargs -0 objdump -T 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -n 1)"
echo "bundle needs glibc >= $GLIBC_MIN (build host: $(ldd --version | head -n 1))"

# 5. The .deb: /opt/occupancy-gui, /usr/bin symlinks, desktop entry, icons, MIME types, docs.
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
# System libraries the bundle loads but does not carry (C++ runtime, libGL/EGL, libxcb, wayland, drm,
# font configuration).
cat > "$STAGE/DEBIAN/control" <<EOF
Package: $APP
Version: $VERSION
Architecture: $DEB_ARCH
Maintainer: $MAINTAINER
Installed-Size: $INSTALLED_KB
Depends: libc6 (>= $GLIBC_MIN), libstdc++6 (>= 12), libgcc-s1, libgl1, libegl1, libxcb1, libdrm2, libwayland-client0, fontconfig-config
Recommends: libwayland-cursor0, libwayland-egl1, fonts-dejavu-core | fonts-liberation2 | fonts-noto-core
Section: devel
Priority: optional
Description: exact CUDA occupancy calculator (desktop GUI and CLI)
 Type or import a CUDA kernel's launch and resource figures (threads per block,
 registers, shared memory, barriers), pick a GPU, and see how many blocks and
 warps fit on one SM, which limit binds, and how occupancy moves with each input.
 Reproduces NVIDIA's cuda_occupancy.h bit for bit. Commands: occupancy-gui, occupancy.
 Self-contained PyInstaller bundle (Python, Qt 6.10, numpy) under /opt/occupancy-gui.
EOF
mkdir -p "$DIST"
DEB="$DIST/${APP}_${VERSION}_${DEB_ARCH}.deb"
rm -f "$DIST/${APP}_"*.deb
dpkg-deb --root-owner-group -Zxz --build "$STAGE" "$DEB" >/dev/null

# 6. The portable tarball: the bundle plus the desktop files and a per-user installer for them.
say "portable tar.gz"
TARNAME="$APP-$VERSION-linux-$MACHINE"
TARDIR="$WORK/tar/$TARNAME"
rm -rf "$WORK/tar" && mkdir -p "$TARDIR"
cp -a "$BUNDLE/." "$TARDIR/"
mkdir -p "$TARDIR/share"
cp -a "$STAGE/usr/share/applications" "$STAGE/usr/share/mime" "$STAGE/usr/share/icons" "$TARDIR/share/"
install -m 755 packaging/linux/install-desktop-entry.sh "$TARDIR/install-desktop-entry.sh"
TARBALL="$DIST/$TARNAME.tar.gz"
rm -f "$DIST/$APP-"*-linux-*.tar.gz
tar -C "$WORK/tar" --owner=0 --group=0 --numeric-owner -czf "$TARBALL" "$TARNAME"

say "done in $(( $(date +%s) - START )) s"
printf '%-10s %s\n' bundle "$(du -sh "$BUNDLE" | cut -f1)  $BUNDLE" \
    deb "$(du -h "$DEB" | cut -f1)  $DEB" \
    tar.gz "$(du -h "$TARBALL" | cut -f1)  $TARBALL" \
    glibc ">= $GLIBC_MIN"
