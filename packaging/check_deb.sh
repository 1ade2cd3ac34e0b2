#!/usr/bin/env bash
# Build the .deb, install it on this machine, run the installed launchers, uninstall, and check that
# nothing is left behind.  Needs root (apt-get/dpkg); offline as long as the package's Depends are
# already installed (they are on a machine set up per README).  Exit 0 only if every step passed.
#
# Usage:  sudo packaging/check_deb.sh            build with packaging/build_linux.sh, then check
#         sudo packaging/check_deb.sh --no-build  check the .deb already in dist/
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
APP="occupancy-gui"
PREFIX="/opt/$APP"
DESKTOP="/usr/share/applications/$APP.desktop"
START=$(date +%s.%N)

say() { printf '\n== %s\n' "$*"; }
fail() { echo "check_deb: FAILED: $*" >&2; exit 1; }
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$1" "$(date +%s.%N)"; }

[[ $(id -u) == 0 ]] || fail "run as root (it installs and removes a package)"
if dpkg-query -W -f='${Status}' "$APP" 2>/dev/null | grep -q "install ok"; then
    fail "$APP is already installed; remove it first (apt-get remove --purge $APP)"
fi

if [[ "${1:-}" != "--no-build" ]]; then
    say "build"
    BUILD_START=$(date +%s.%N)
    packaging/build_linux.sh
    echo "build took $(elapsed "$BUILD_START") s"
fi
DEB="$(ls -t dist/${APP}_*.deb 2>/dev/null | head -n 1)"
[[ -f "$DEB" ]] || fail "no dist/${APP}_*.deb (run packaging/build_linux.sh)"

uninstall() { apt-get remove --purge -y -q "$APP" >/dev/null 2>&1 || dpkg --purge "$APP" >/dev/null 2>&1 || true; }
trap 'status=$?; if [[ $status != 0 ]]; then echo "check_deb: cleaning up after failure" >&2; uninstall; fi' EXIT

say "install $DEB"
# --no-install-recommends: Recommends (fonts, wayland-cursor) may need the network; Depends may not.
apt-get install -y -q --no-install-recommends "./$DEB"
dpkg-query -W -f='${Package} ${Version} ${Status}\n' "$APP"

say "installed files"
for path in "$PREFIX/$APP" "$PREFIX/occupancy" "$DESKTOP" "/usr/share/mime/packages/$APP.xml" \
    "/usr/share/icons/hicolor/128x128/apps/$APP.png" "/usr/share/icons/hicolor/scalable/apps/$APP.svg"; do
    [[ -e "$path" ]] || fail "missing after install: $path"
done
[[ "$(command -v "$APP")" == "/usr/bin/$APP" ]] || fail "$APP is not on PATH as /usr/bin/$APP"
[[ "$(command -v occupancy)" == "/usr/bin/occupancy" ]] || fail "occupancy is not on PATH as /usr/bin/occupancy"
if command -v desktop-file-validate >/dev/null; then desktop-file-validate "$DESKTOP"; fi
if [[ -f /usr/share/mime/application/x-occupancy-session.xml ]]; then
    echo "MIME database knows application/x-occupancy-session (shared-mime-info trigger ran)"
elif command -v update-mime-database >/dev/null; then
    fail "shared-mime-info is installed but application/x-occupancy-session is not in the MIME database"
fi
echo "installed size: $(du -sh "$PREFIX" | cut -f1)"

# A user's view: no display, fresh HOME, launched through /usr/bin, so nothing writes to root's config.
HOME_DIR="$(mktemp -d)"
run_user() { env -i PATH=/usr/bin:/bin HOME="$HOME_DIR" LANG=C.UTF-8 QT_QPA_PLATFORM=offscreen "$@"; }

say "occupancy-gui --self-test (cold start)"
# Truly cold where allowed (drop the page cache, which the install has just filled); else warm-ish.
if sync && echo 3 > /proc/sys/vm/drop_caches 2>/dev/null; then CACHE="page cache dropped"; else CACHE="page cache not dropped"; fi
T0=$(date +%s.%N)
run_user "$APP" --self-test || fail "$APP --self-test exited $?"
echo "self-test: $(elapsed "$T0") s from launch to exit ($CACHE)"
T0=$(date +%s.%N)
run_user "$APP" --self-test >/dev/null 2>&1 || fail "$APP --self-test (second run) exited $?"
echo "self-test again (warm): $(elapsed "$T0") s"

say "occupancy-gui --screenshot"
SHOT=/tmp/x.png
rm -f "$SHOT"
T0=$(date +%s.%N)
run_user "$APP" --screenshot "$SHOT" || fail "$APP --screenshot exited $?"
echo "screenshot: $(elapsed "$T0") s from launch to exit"
[[ -s "$SHOT" ]] && head -c 8 "$SHOT" | od -An -tx1 | grep -q "89 50 4e 47" || fail "$SHOT is not a PNG"
echo "$SHOT: $(stat -c %s "$SHOT") bytes"

say "occupancy (CLI)"
CALC="$(run_user occupancy calc --device sm_100 --threads 256 --registers 64 --static-smem 24KiB)"
echo "$CALC" | head -n 2
grep -q "4 blocks.*occupancy 50.0%" <<<"$CALC" || fail "occupancy calc did not give 4 blocks / 50 %"

say "occupancy import (every parser of the bundle: log, cuobjdump text, ncu CSV, cubin, fatbin, object)"
for f in gen/a_ptxas_v.log gen/a_sm80.cubin.cuobjdump.txt ncu/details_launchstats_occupancy.csv \
         gen/a_sm80.cubin gen/a_lz4.fatbin gen/b_host.o; do
    cp "$ROOT/tests/data/importers/$f" "$HOME_DIR/"
    name="$HOME_DIR/$(basename "$f")"
    COUNT="$(run_user occupancy import "$name" --json | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')" \
        || fail "occupancy import $f failed"
    [[ "$COUNT" -gt 0 ]] || fail "occupancy import $f listed no kernels"
    echo "$f: $COUNT records"
done
rm -rf "$HOME_DIR"

say "uninstall"
apt-get remove --purge -y -q "$APP"
dpkg-query -W -f='${Status}' "$APP" 2>/dev/null | grep -q "install ok" && fail "$APP still installed"
[[ ! -e "$PREFIX" ]] || fail "$PREFIX left behind: $(find "$PREFIX" | head -n 5 | tr '\n' ' ')"
for path in "$DESKTOP" "/usr/bin/$APP" /usr/bin/occupancy "/usr/share/mime/packages/$APP.xml" \
    "/usr/share/icons/hicolor/128x128/apps/$APP.png" /usr/share/mime/application/x-occupancy-session.xml; do
    [[ ! -e "$path" && ! -L "$path" ]] || fail "left behind after uninstall: $path"
done

say "check_deb: PASSED in $(elapsed "$START") s"
