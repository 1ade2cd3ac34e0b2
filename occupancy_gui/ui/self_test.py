"""``occupancy-gui --self-test``: prove an installation works, from source or from the frozen bundle.

It checks, in order, and stops at the first failure with one line on stderr and exit status 1:

1. every bundled device profile loads (``device_profiles/`` next to the code, or under
   ``sys._MEIPASS`` in a PyInstaller bundle — which must then be where it was found);
2. the seed's worked example: sm_100, 256 threads, 64 registers, 24 KiB static shared memory gives
   4 blocks per SM, 50 % occupancy, bound by registers;
3. the bundled icons render (the SVG icon engine is a Qt plugin a bundle can lose);
4. the main window, built by the factory the app hands to :func:`run` exactly as the app builds it,
   renders to a non-blank image (offscreen when there is no display).

Success prints one line on stdout and returns 0.  Each check imports what it checks, inside the check:
a bundle that lost a module fails that check, in one line, instead of failing to start the self-test.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMainWindow

W = TypeVar("W", bound="QMainWindow")

EXAMPLE_DEVICE = "sm_100"
EXAMPLE_ARGS = ["--device", EXAMPLE_DEVICE, "--threads", "256", "--registers", "64", "--static-smem", "24KiB"]
EXPECTED_BLOCKS = 4
EXPECTED_OCCUPANCY = 0.5
MIN_COLOURS = 8
"""A rendered window has text, frames, a table and plots: far more colours than a blank fill."""


class SelfTestFailure(Exception):
    """One check failed; the message is one line."""


def _headless() -> bool:
    if sys.platform.startswith("linux"):
        return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return False


def check_profiles() -> int:
    """Load every bundled profile strictly; return how many."""
    from ..paths import data_dir  # noqa: PLC0415 - see the module docstring
    from ..profiles import Catalog, ProfileError  # noqa: PLC0415 - see the module docstring

    directory = data_dir("device_profiles")
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root and Path(frozen_root) not in directory.parents:
        raise SelfTestFailure(f"frozen bundle read device profiles from {directory}, not from {frozen_root}")
    files = sorted(p for p in directory.iterdir() if p.suffix in (".yaml", ".yml"))
    if not files:
        raise SelfTestFailure(f"no device profiles in {directory}")
    try:
        catalog = Catalog.load([directory])
    except ProfileError as exc:
        raise SelfTestFailure(f"bundled profile does not load: {' '.join(str(exc).split())}") from None
    if len(catalog) != len(files):
        raise SelfTestFailure(f"{len(files)} profile files in {directory} but {len(catalog)} profiles loaded")
    return len(catalog)


def check_worked_example() -> str:
    """The seed's worked example through the engine; return a short description."""
    from ..engine import FunctionAttributes, Launch, Limit, compute_occupancy  # noqa: PLC0415 - see the module docstring
    from ..paths import data_dir  # noqa: PLC0415 - see the module docstring
    from ..profiles import Catalog  # noqa: PLC0415 - see the module docstring

    profile = Catalog.load([data_dir("device_profiles")]).get(EXAMPLE_DEVICE)
    result = compute_occupancy(
        profile.device_properties(),
        FunctionAttributes(num_regs=64, shared_size_bytes=24 * 1024),
        Launch(block_size=256),
    )
    got = (result.active_blocks, result.occupancy, result.binding)
    want = (EXPECTED_BLOCKS, EXPECTED_OCCUPANCY, (Limit.REGISTERS,))
    if got != want:
        blocks, occ, binding = got
        raise SelfTestFailure(
            f"worked example ({EXAMPLE_DEVICE}, 256 threads, 64 registers, 24 KiB) gave {blocks} blocks, "
            f"{occ:.1%}, bound by {', '.join(b.value for b in binding) or 'nothing'}; "
            f"expected {EXPECTED_BLOCKS} blocks, 50.0%, bound by registers"
        )
    return f"{EXAMPLE_DEVICE} 256 threads/64 regs/24 KiB -> {result.active_blocks} blocks/SM, {result.occupancy:.0%}, registers"


def _colours(image: object) -> int:
    """Distinct colours in ``image`` (a QImage), counted with numpy."""
    import numpy as np  # noqa: PLC0415 - see the module docstring
    from PySide6.QtGui import QImage  # noqa: PLC0415 - see the module docstring

    assert isinstance(image, QImage)
    rgb = image.convertToFormat(QImage.Format.Format_RGB32)
    if rgb.isNull() or rgb.width() == 0 or rgb.height() == 0:
        return 0
    data = np.frombuffer(rgb.constBits(), dtype=np.uint32, count=rgb.bytesPerLine() * rgb.height() // 4)
    pixels = data.reshape(rgb.height(), rgb.bytesPerLine() // 4)[:, : rgb.width()]
    return int(np.unique(pixels).size)


def check_icons() -> None:
    """Every bundled icon renders to a non-empty pixmap (needs the SVG icon engine plugin)."""
    from .support.qt_utils import ICON_NAMES, icon  # noqa: PLC0415 - see the module docstring

    for name in ICON_NAMES:
        pixmap = icon(name).pixmap(32, 32)
        if pixmap.isNull() or _colours(pixmap.toImage()) < 2:
            raise SelfTestFailure(f"icon {name!r} does not render (is the Qt SVG icon engine plugin missing?)")


class WindowFactory(Protocol[W]):
    """How the application builds its window from a command line, and renders it to a PNG."""

    def create(self, argv: list[str]) -> W: ...

    def screenshot(self, window: W, path: Path) -> None: ...

    def close(self, window: W) -> None:
        """Close it without asking anything (nobody is there to answer "Save changes?")."""
        ...


def check_main_window(factory: WindowFactory[Any]) -> str:
    """Build the main window as the app does, render it, and check the picture; return its size."""
    from PySide6.QtGui import QImage  # noqa: PLC0415 - see the module docstring

    with tempfile.TemporaryDirectory(prefix="occupancy-gui-self-test-") as tmp:
        out = Path(tmp) / "window.png"
        # --screenshot keeps the user's QSettings out of it, as the app's screenshot mode does.
        try:
            window = factory.create([*EXAMPLE_ARGS, "--screenshot", str(out)])
        except Exception as exc:  # noqa: BLE001 - a bad command line or anything else: one line
            raise SelfTestFailure(f"cannot create the main window: {exc}") from None
        try:
            check_icons()
            factory.screenshot(window, out)  # resize, show, settle, grab(), save
            image = QImage(str(out))
        finally:
            factory.close(window)
            window.deleteLater()
    if image.isNull():
        raise SelfTestFailure("the main window's grab() could not be saved and read back as PNG")
    colours = _colours(image)
    if colours < MIN_COLOURS:
        raise SelfTestFailure(
            f"the main window rendered blank ({colours} colour(s) in {image.width()}x{image.height()})"
        )
    return f"{image.width()}x{image.height()} window, {colours} colours"


class _QtMessages:
    """Collects Qt's warnings while the checks run, so a failure can name the first one in its line
    and a pass stays quiet (the offscreen platform warns about window hints it ignores)."""

    IGNORED = ("does not support propagateSizeHints",)

    def __init__(self) -> None:
        self.messages: list[str] = []
        self.previous: object = None

    def __enter__(self) -> _QtMessages:
        from PySide6.QtCore import qInstallMessageHandler  # noqa: PLC0415 - see the module docstring

        self.previous = qInstallMessageHandler(self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        from PySide6.QtCore import qInstallMessageHandler  # noqa: PLC0415 - see the module docstring

        qInstallMessageHandler(self.previous)

    def _handle(self, kind: object, _context: object, message: str) -> None:
        from PySide6.QtCore import QtMsgType  # noqa: PLC0415 - see the module docstring

        serious = kind in (QtMsgType.QtWarningMsg, QtMsgType.QtCriticalMsg, QtMsgType.QtFatalMsg)
        if serious and not any(text in message for text in self.IGNORED):
            self.messages.append(" ".join(message.split()))

    def hint(self) -> str:
        return f" (Qt: {self.messages[0]})" if self.messages else ""


def check_on_demand_modules() -> int:
    """Import what the window loads only on first use (a bundle that lacks one fails only then)."""
    from .. import engine  # noqa: PLC0415 - see the module docstring
    from ..importers import reader_modules  # noqa: PLC0415 - see the module docstring
    from .analysis import advisor_view, heatmap_view, waves_view  # noqa: PLC0415 - see the module docstring
    from .kernels import import_dock  # noqa: PLC0415 - see the module docstring

    modules = (*reader_modules(), advisor_view, heatmap_view, import_dock, waves_view)
    names = ("advise", "analyse_waves", "grid_blocks", "suggest_launch_bounds")
    missing = [name for name in names if not callable(getattr(engine, name, None))]
    if missing:
        raise SelfTestFailure(f"engine rules missing: {', '.join(missing)}")
    return len(modules) + len(names)


def run(factory: WindowFactory[Any]) -> int:
    """Run every check; 0 on success, 1 (with one line on stderr) on the first failure."""
    start = time.perf_counter()
    if _headless():
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    qt = _QtMessages()
    try:
        count = check_profiles()
        example = check_worked_example()
        modules = check_on_demand_modules()
        with qt:
            window = check_main_window(factory)
    except SelfTestFailure as exc:
        print(f"occupancy-gui: self-test failed: {exc}{qt.hint()}", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 (anything else is a failure too, still in one line)
        message = " ".join(f"{type(exc).__name__}: {exc}".split())
        print(f"occupancy-gui: self-test failed: {message}{qt.hint()}", file=sys.stderr)
        return 1
    where = "frozen bundle" if getattr(sys, "frozen", False) else "source"
    print(
        f"occupancy-gui self-test passed ({where}): {count} profiles; {example}; {modules} on-demand modules; "
        f"{window}; "
        f"{time.perf_counter() - start:.2f} s"
    )
    return 0
