#!/usr/bin/env bash
# macOS .app + .dmg recipe.  NOT built or tested by this project (no Mac in CI); run on macOS 12+
# with Python 3.11 from python.org (universal2 or the machine's arch) and Xcode command-line tools:
#
#   packaging/macos/build_macos.sh
#
# Output: dist/Occupancy GUI.app and dist/occupancy-gui-<version>-macos-<arch>.dmg.
# The app is not signed or notarised: first launch needs right-click > Open (or
# `xattr -dr com.apple.quarantine "/Applications/Occupancy GUI.app"`).  To sign, add
# `codesign --deep --force --options runtime --sign "Developer ID Application: ..." "dist/Occupancy GUI.app"`
# before hdiutil, then `xcrun notarytool submit ... --wait` and `xcrun stapler staple` on the .dmg.
set -euo pipefail
cd "$(dirname "$0")/../.."

VERSION="$(sed -n 's/^__version__ = "\(.*\)"/\1/p' occupancy_gui/__init__.py)"
ARCH="$(uname -m)"
python3.11 -m venv build/pyinstaller-venv
PY=build/pyinstaller-venv/bin/python
"$PY" -m pip install pyinstaller==6.22.3 pillow $("$PY" -c "import tomllib; print(' '.join(tomllib.load(open('pyproject.toml','rb'))['project']['dependencies']))")

# The spec adds a BUNDLE step on macOS: dist/Occupancy GUI.app (icon converted from app-256.png by Pillow).
build/pyinstaller-venv/bin/pyinstaller --noconfirm --clean --distpath dist --workpath build/pyinstaller/work \
    packaging/occupancy_gui.spec

APP="dist/Occupancy GUI.app"
QT_QPA_PLATFORM=offscreen "$APP/Contents/MacOS/occupancy-gui" --self-test
"$APP/Contents/MacOS/occupancy" calc --device sm_100 --threads 256 --registers 64 --static-smem 24KiB

# A drag-to-Applications disk image.
STAGE="build/dmg"
rm -rf "$STAGE" && mkdir -p "$STAGE"
cp -R "$APP" "$STAGE/"
ln -s /Applications "$STAGE/Applications"
DMG="dist/occupancy-gui-$VERSION-macos-$ARCH.dmg"
rm -f "$DMG"
hdiutil create -volname "Occupancy GUI $VERSION" -srcfolder "$STAGE" -fs HFS+ -format UDZO -ov "$DMG"
hdiutil verify "$DMG"
echo "built $DMG"
echo "CLI: ln -s \"/Applications/Occupancy GUI.app/Contents/MacOS/occupancy\" /usr/local/bin/occupancy"
