#!/usr/bin/env bash
# Install the packages as a new user would, on each supported Debian release, and check them:
# for every suite, in a fresh copy of a debootstrap minbase root (glibc 2.31 / 2.36 / 2.41):
#
#   .deb     apt-get install ./occupancy-gui_*.deb (so apt resolves its Depends from the mirror), the
#            installed files, occupancy calc on the worked example, occupancy import on each parser's
#            sample, occupancy batch --jobs 2 (the bundle's worker processes), occupancy-gui --self-test
#            (cold: page cache dropped) and --screenshot, offscreen, as an unprivileged user; then
#            apt-get purge --autoremove and a check that the root holds exactly the files it held
#            before the install (nothing left by the package or its Depends)
#   .tar.gz  unpacked in the same root (the .deb's Depends installed by name), the same launcher runs,
#            install-desktop-entry.sh and --uninstall, and nothing of ours left in ~/.local
#
# Needs root and Debian's mirror (debootstrap, apt).  Roots are cached (packaging/linux/debian_root.sh):
# from a cold cache each suite's root costs about 2 minutes once; each check copies it (seconds).
#
# Usage:  sudo packaging/check_deb.sh [--no-build] [SUITE...]     (default suites: bullseye bookworm trixie)
#         --no-build  check the packages already in dist/ instead of running packaging/build_linux.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=packaging/linux/debian_root.sh
source packaging/linux/debian_root.sh
APP="occupancy-gui"
PREFIX="/opt/$APP"
START=$(date +%s.%N)
BUILD=1
SUITES=()
for arg in "$@"; do
    case "$arg" in
        --no-build) BUILD=0 ;;
        -*) echo "usage: check_deb.sh [--no-build] [SUITE...]" >&2; exit 2 ;;
        *) SUITES+=("$arg") ;;
    esac
done
[[ ${#SUITES[@]} -gt 0 ]] || SUITES=(bullseye bookworm trixie)
WORKDIR="$ROOT/build/check"
USERSPEC="65534:65534"  # nobody: the launchers run unprivileged, with a HOME of their own
UHOME="/tmp/home"

say() { printf '\n== %s\n' "$*"; }
fail() {
    echo "check_deb: FAILED${SUITE:+ ($SUITE)}: $*" >&2
    # A full disk fails every later step too: say how much was free.
    echo "check_deb: free space: $(df -h --output=avail,target "$ROOT" "${PKG_CACHE:-$ROOT}" | tail -n +2 | xargs)" >&2
    exit 1
}
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}'; }

need_root_tools || fail "needs root"

if [[ $BUILD == 1 ]]; then
    # The check roots' debootstrap is mostly download: make the missing ones while the build runs.
    PREP_PIDS=()
    for suite in "${SUITES[@]}"; do
        [[ "$suite" == "${BUILD_SUITE:-bullseye}" || -f "$PKG_CACHE/roots/$suite/.complete" ]] && continue
        pristine_root "$suite" >/dev/null &
        PREP_PIDS+=($!)
    done
    say "build"
    BUILD_START=$(date +%s.%N)
    packaging/build_linux.sh
    echo "build took $(elapsed "$BUILD_START") s"
    for pid in "${PREP_PIDS[@]}"; do wait "$pid" || fail "making a check root failed (see $PKG_CACHE/roots/*.debootstrap.log)"; done
fi
DEB="$(ls -t dist/${APP}_*.deb 2>/dev/null | head -n 1)"
TARBALL="$(ls -t dist/${APP}-*-linux-*.tar.gz 2>/dev/null | head -n 1)"
[[ -f "$DEB" ]] || fail "no dist/${APP}_*.deb (run packaging/build_linux.sh)"
[[ -f "$TARBALL" ]] || fail "no dist/${APP}-*-linux-*.tar.gz (run packaging/build_linux.sh)"
TARNAME="$(basename "$TARBALL" .tar.gz)"
# The .deb's Depends as plain package names (first of each alternative): what the tarball needs too.
DEPENDS="$(dpkg-deb -f "$DEB" Depends | tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/ //g' | grep . | paste -sd ' ')"
echo "checking $DEB and $TARBALL (Depends: $(dpkg-deb -f "$DEB" Depends))"

# Everything under the root that a package could leave behind (apt's and dpkg's own state aside).
snapshot() {  # root
    (cd "$1" && find . -xdev \( -path ./proc -o -path ./dev -o -path ./tmp -o -path ./var/cache -o -path ./var/log \
        -o -path ./var/lib/apt -o -path ./var/lib/dpkg -o -path ./run -o -path ./root \) -prune -o -print | sort)
}

# One launcher session as the unprivileged user, offscreen, with a clean environment.
as_user() { CHROOT_USERSPEC="$USERSPEC" in_root "$R" HOME="$UHOME" QT_QPA_PLATFORM=offscreen "$@"; }

# The launchers' checks, given the two executables' paths inside the root.
check_launchers() {  # gui cli label
    local gui="$1" cli="$2" label="$3" t0 out
    say "$label: occupancy calc (worked example)"
    out="$(as_user "$cli" calc --device sm_100 --threads 256 --registers 64 --static-smem 24KiB)" \
        || fail "$label: occupancy calc exited non-zero"
    head -n 2 <<<"$out"
    grep -q "4 blocks.*occupancy 50.0%" <<<"$out" || fail "$label: occupancy calc did not give 4 blocks / 50 %"

    say "$label: occupancy import (each parser: log, cuobjdump text, ncu CSV, cubin, fatbin, object)"
    local f count
    for f in gen/a_ptxas_v.log gen/a_sm80.cubin.cuobjdump.txt ncu/details_launchstats_occupancy.csv \
             gen/a_sm80.cubin gen/a_lz4.fatbin gen/b_host.o; do
        install -m 644 "tests/data/importers/$f" "$R$UHOME/$(basename "$f")"
        count="$(as_user "$cli" import "$UHOME/$(basename "$f")" --json \
            | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')" || fail "$label: occupancy import $f failed"
        [[ "$count" -gt 0 ]] || fail "$label: occupancy import $f listed no kernels"
        echo "$f: $count records"
    done

    say "$label: occupancy batch --jobs 2 (the executable started again as its own worker process)"
    python3 -c 'import json
for d in ("sm_80", "sm_90", "8.6"):
    for t in range(32, 1025, 32):
        for r in range(0, 256, 2):
            print(json.dumps({"device": d, "threads": t, "registers": r}))' > "$WORKDIR/queries.jsonl"
    install -m 644 "$WORKDIR/queries.jsonl" "$R$UHOME/queries.jsonl"
    local one many
    one="$(as_user "$cli" batch "$UHOME/queries.jsonl" | sha256sum)" || fail "$label: occupancy batch failed"
    many="$(as_user "$cli" batch "$UHOME/queries.jsonl" --jobs 2 2>"$WORKDIR/batch-stderr.txt" | sha256sum)" \
        || fail "$label: occupancy batch --jobs 2 failed"
    [[ "$one" == "$many" ]] || fail "$label: occupancy batch --jobs 2 answered otherwise than one process"
    [[ ! -s "$WORKDIR/batch-stderr.txt" ]] || { cat "$WORKDIR/batch-stderr.txt"; fail "$label: batch workers did not run"; }
    echo "batch: 12,288 queries, --jobs 2 answered as one process (${one%% *})"

    say "$label: occupancy-gui --self-test"
    local cache="page cache not dropped"
    if sync && echo 3 > /proc/sys/vm/drop_caches 2>/dev/null; then cache="page cache dropped"; fi
    t0=$(date +%s.%N)
    as_user "$gui" --self-test || fail "$label: $gui --self-test exited non-zero"
    echo "cold start: self-test $(elapsed "$t0") s from launch to exit ($cache)"
    t0=$(date +%s.%N)
    as_user "$gui" --self-test >/dev/null 2>&1 || fail "$label: $gui --self-test (second run) exited non-zero"
    echo "warm: self-test $(elapsed "$t0") s"

    say "$label: occupancy-gui --screenshot"
    rm -f "$R$UHOME/shot.png"
    t0=$(date +%s.%N)
    as_user "$gui" --screenshot "$UHOME/shot.png" || fail "$label: $gui --screenshot exited non-zero"
    [[ -s "$R$UHOME/shot.png" ]] && head -c 8 "$R$UHOME/shot.png" | od -An -tx1 | grep -q "89 50 4e 47" \
        || fail "$label: the screenshot is not a PNG"
    echo "screenshot: $(elapsed "$t0") s, $(stat -c %s "$R$UHOME/shot.png") bytes"
    cp "$R$UHOME/shot.png" "$WORKDIR/$SUITE-$label-screenshot.png"
}

check_deb_in() {
    say "$SUITE: install $(basename "$DEB") with apt"
    cp "$DEB" "$R/tmp/"
    in_root "$R" apt-get update -q >/dev/null || fail "apt-get update failed"
    snapshot "$R" > "$WORKDIR/$SUITE-before.txt"
    in_root "$R" dpkg-query -W -f='${Package}\n' | sort > "$WORKDIR/$SUITE-packages-before.txt"
    local t0=$(date +%s.%N)
    in_root "$R" apt-get install -y -q "/tmp/$(basename "$DEB")" > "$WORKDIR/$SUITE-apt-install.log" 2>&1 \
        || { tail -n 20 "$WORKDIR/$SUITE-apt-install.log"; fail "apt-get install of the .deb failed"; }
    echo "apt-get install: $(elapsed "$t0") s ($(grep -c '^Setting up' "$WORKDIR/$SUITE-apt-install.log") packages set up)"
    in_root "$R" dpkg-query -W -f='${Package} ${Version} ${Status}\n' "$APP"
    local path
    for path in "$PREFIX/$APP" "$PREFIX/occupancy" "/usr/share/applications/$APP.desktop" "/usr/share/mime/packages/$APP.xml" \
        "/usr/share/icons/hicolor/128x128/apps/$APP.png" "/usr/share/icons/hicolor/scalable/apps/$APP.svg"; do
        [[ -e "$R$path" ]] || fail "missing after install: $path"
    done
    [[ "$(in_root "$R" sh -c "command -v $APP")" == "/usr/bin/$APP" ]] || fail "$APP is not on PATH as /usr/bin/$APP"
    [[ "$(in_root "$R" sh -c "command -v occupancy")" == "/usr/bin/occupancy" ]] || fail "occupancy is not on PATH"
    echo "installed size: $(du -sh "$R$PREFIX" | cut -f1)"
    mkdir -p "$R$UHOME" && chown 65534:65534 "$R$UHOME"
    check_launchers "/usr/bin/$APP" /usr/bin/occupancy deb

    say "$SUITE: apt-get purge --autoremove"
    in_root "$R" apt-get purge --autoremove -y -q "$APP" > "$WORKDIR/$SUITE-apt-purge.log" 2>&1 || fail "apt-get purge failed"
    in_root "$R" dpkg-query -W -f='${Status}' "$APP" 2>/dev/null | grep -q "install ok" && fail "$APP still installed"
    rm -rf "$R$UHOME" "$R/tmp/$(basename "$DEB")"
    snapshot "$R" > "$WORKDIR/$SUITE-after.txt"
    # Left behind: any path that was not there before, except the files of dependencies apt keeps by
    # policy (autoremove spares Priority: required packages such as sensible-utils, which minbase
    # lacks).  Gone: any path that was, except /opt itself, which dpkg removes with the package when
    # no other package owns it and it is empty.
    local left gone kept
    in_root "$R" dpkg-query -W -f='${Package}\n' | sort > "$WORKDIR/$SUITE-packages-after.txt"
    kept="$(comm -13 "$WORKDIR/$SUITE-packages-before.txt" "$WORKDIR/$SUITE-packages-after.txt" | paste -sd ' ')"
    : > "$WORKDIR/$SUITE-kept-files.txt"
    if [[ -n "$kept" ]]; then
        # shellcheck disable=SC2086
        echo "apt kept by policy: $(in_root "$R" dpkg-query -W -f='${Package} (Priority: ${Priority}) ' $kept)"
        # shellcheck disable=SC2086
        in_root "$R" dpkg-query -W -f='${Package} ${Priority}\n' $kept | awk '$2 != "required" && $2 != "important"' \
            | grep . && fail "apt-get purge --autoremove kept the dependencies above"
        # shellcheck disable=SC2086
        in_root "$R" dpkg -L $kept | sed 's|^/|./|' | sort -u > "$WORKDIR/$SUITE-kept-files.txt"
    fi
    left="$(comm -13 "$WORKDIR/$SUITE-before.txt" "$WORKDIR/$SUITE-after.txt" | comm -23 - "$WORKDIR/$SUITE-kept-files.txt")"
    gone="$(comm -23 "$WORKDIR/$SUITE-before.txt" "$WORKDIR/$SUITE-after.txt" | grep -vx './opt' || true)"
    [[ -z "$left" ]] || fail "left behind after the purge: $(head -n 20 <<<"$left" | tr '\n' ' ')"
    [[ -z "$gone" ]] || fail "removed by the purge though there before the install: $(head -n 20 <<<"$gone" | tr '\n' ' ')"
    echo "nothing left: the root's $(wc -l < "$WORKDIR/$SUITE-after.txt") paths are those it had before the install"
}

check_tarball_in() {
    say "$SUITE: portable $(basename "$TARBALL") (Depends installed by name: $DEPENDS)"
    # shellcheck disable=SC2086
    in_root "$R" apt-get install -y -q --no-install-recommends $DEPENDS > "$WORKDIR/$SUITE-apt-depends.log" 2>&1 \
        || { tail -n 20 "$WORKDIR/$SUITE-apt-depends.log"; fail "installing the tarball's system libraries failed"; }
    mkdir -p "$R$UHOME" && chown 65534:65534 "$R$UHOME"
    cp "$TARBALL" "$R/tmp/"
    as_user tar -C "$UHOME" -xzf "/tmp/$(basename "$TARBALL")" || fail "unpacking the tarball failed"
    local dir="$UHOME/$TARNAME"
    check_launchers "$dir/$APP" "$dir/occupancy" tar
    say "$SUITE: install-desktop-entry.sh, then --uninstall"
    as_user "$dir/install-desktop-entry.sh" || fail "install-desktop-entry.sh failed"
    for path in .local/share/applications/$APP.desktop .local/share/icons/hicolor/256x256/apps/$APP.png .local/bin/$APP; do
        [[ -e "$R$UHOME/$path" || -L "$R$UHOME/$path" ]] || fail "install-desktop-entry.sh did not make ~/$path"
    done
    grep -q "^Exec=\"$dir/$APP\" %f" "$R$UHOME/.local/share/applications/$APP.desktop" || fail "desktop entry does not point at the bundle"
    as_user "$dir/install-desktop-entry.sh" --uninstall || fail "install-desktop-entry.sh --uninstall failed"
    local left
    left="$(find "$R$UHOME/.local" \( -type f -o -type l \) -name "*occupancy*" | sed "s|^$R$UHOME/||")"
    [[ -z "$left" ]] || fail "left in ~/.local after --uninstall: $left"
    echo "~/.local holds nothing of ours after --uninstall"
}

mkdir -p "$WORKDIR"
# A suite's working root holds a few hundred MB: remove it however the check ends, so a failure leaves the disk
# as it found it for whatever runs next (the pristine roots stay cached).
trap 'rm -rf "$WORKDIR"/root-*' EXIT
for SUITE in "${SUITES[@]}"; do
    SUITE_START=$(date +%s.%N)
    say "$SUITE: fresh root"
    R="$WORKDIR/root-$SUITE"
    fresh_root "$SUITE" "$R" || fail "could not make a $SUITE root"
    echo "$SUITE root ready (glibc $(in_root "$R" ldd --version | head -n 1 | awk '{print $NF}'))"
    check_deb_in
    check_tarball_in
    rm -rf "$R"
    echo "$SUITE: passed in $(elapsed "$SUITE_START") s"
done
SUITE=""
say "check_deb: PASSED (${SUITES[*]}) in $(elapsed "$START") s"
