#!/usr/bin/env bash
# Portable tarball only: add (or, with --uninstall, remove) the desktop entry, icons and MIME types
# for the current user, pointing at this unpacked folder, and put occupancy-gui/occupancy on PATH
# via ~/.local/bin symlinks.  No root needed; nothing outside ~/.local is touched.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DATA="${XDG_DATA_HOME:-$HOME/.local/share}"
BIN="$HOME/.local/bin"
APP="occupancy-gui"
SIZES="16 24 32 48 64 128 256"

if [[ "${1:-}" == "--uninstall" ]]; then
    rm -f "$DATA/applications/$APP.desktop" "$DATA/mime/packages/$APP.xml" \
        "$DATA/icons/hicolor/scalable/apps/$APP.svg" "$BIN/$APP" "$BIN/occupancy"
    for s in $SIZES; do rm -f "$DATA/icons/hicolor/${s}x${s}/apps/$APP.png"; done
else
    mkdir -p "$DATA/applications" "$DATA/mime/packages" "$BIN"
    sed "s|^Exec=occupancy-gui|Exec=\"$HERE/$APP\"|; s|^TryExec=.*|TryExec=$HERE/$APP|" \
        "$HERE/share/applications/$APP.desktop" > "$DATA/applications/$APP.desktop"
    cp "$HERE/share/mime/packages/$APP.xml" "$DATA/mime/packages/"
    for s in $SIZES; do
        install -D -m 644 "$HERE/share/icons/hicolor/${s}x${s}/apps/$APP.png" "$DATA/icons/hicolor/${s}x${s}/apps/$APP.png"
    done
    install -D -m 644 "$HERE/share/icons/hicolor/scalable/apps/$APP.svg" "$DATA/icons/hicolor/scalable/apps/$APP.svg"
    ln -sf "$HERE/$APP" "$BIN/$APP"
    ln -sf "$HERE/occupancy" "$BIN/occupancy"
fi
command -v update-mime-database >/dev/null && update-mime-database "$DATA/mime" || true
command -v update-desktop-database >/dev/null && update-desktop-database "$DATA/applications" || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$DATA/icons/hicolor" || true
echo "$APP desktop entry $([[ "${1:-}" == --uninstall ]] && echo removed || echo installed) for ${USER:-$(id -un)} (bundle: $HERE)"
