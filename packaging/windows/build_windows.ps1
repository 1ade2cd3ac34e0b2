# Windows installer recipe.  NOT built or tested by this project (no Windows machine in CI); run on
# Windows 10/11 x64 with Python 3.11 (python.org installer) and Inno Setup 6 installed
# (https://jrsoftware.org/isdl.php; or `winget install JRSoftware.InnoSetup`).
#
#   powershell -ExecutionPolicy Bypass -File packaging\windows\build_windows.ps1
#
# Output: dist\occupancy-gui\ (bundle) and dist\occupancy-gui-<version>-setup.exe (installer).
$ErrorActionPreference = "Stop"
Set-Location (Join-Path $PSScriptRoot "..\..")

$version = (Select-String -Path occupancy_gui\__init__.py -Pattern '__version__ = "(.*)"').Matches[0].Groups[1].Value
py -3.11 -m venv build\pyinstaller-venv
$py = "build\pyinstaller-venv\Scripts\python.exe"
$deps = & $py -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml','rb'))['project']['dependencies']))"
& $py -m pip install pyinstaller==6.22.3 pillow $deps.Split("`n")

# The installer's icon (PyInstaller converts the exe icon itself; Inno Setup needs a real .ico).
& $py -c "from PIL import Image; Image.open('resources/icons/app-256.png').save('build/app.ico', sizes=[(16,16),(24,24),(32,32),(48,48),(64,64),(128,128),(256,256)])"

& build\pyinstaller-venv\Scripts\pyinstaller.exe --noconfirm --clean --distpath dist --workpath build\pyinstaller\work packaging\occupancy_gui.spec

# Smoke test: the GUI exe is windowed (no console), so check its exit code rather than its output.
$env:QT_QPA_PLATFORM = "offscreen"
$p = Start-Process -FilePath dist\occupancy-gui\occupancy-gui.exe -ArgumentList "--self-test" -Wait -PassThru
Remove-Item Env:QT_QPA_PLATFORM
if ($p.ExitCode -ne 0) { throw "occupancy-gui.exe --self-test failed ($($p.ExitCode))" }
dist\occupancy-gui\occupancy.exe calc --device sm_100 --threads 256 --registers 64 --static-smem 24KiB

& "${env:ProgramFiles(x86)}\Inno Setup 6\ISCC.exe" "/DAppVersion=$version" packaging\windows\occupancy-gui.iss
Get-Item "dist\occupancy-gui-$version-setup.exe"
