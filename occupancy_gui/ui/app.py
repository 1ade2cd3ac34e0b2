"""``occupancy-gui``: command line, application object and the screenshot mode."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from PySide6.QtCore import QCoreApplication, QEventLoop, QSettings, Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from .. import __version__, fields, units
from ..device_choice import find_profile
from ..session import DEFAULT_DEVICE, DEFAULT_INPUTS, INPUT_RANGES, InputRefused, Session
from .support.qt_utils import app_icon
from .support.settings import WINDOW_OPTIONS, load_inputs

if TYPE_CHECKING:
    from ..profiles import Catalog
    from ..session.file import SessionState
    from .main_window import MainWindow

ORGANIZATION = "occupancy_gui"
APPLICATION = "occupancy-gui"
SCREENSHOT_SIZE = (1400, 900)
RANGES = INPUT_RANGES


class UsageError(Exception):
    """A bad command line; the message is one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _count(name: str) -> Any:
    def convert(text: str) -> int:
        value = units.parse_count(text)
        low, high = RANGES[name]
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected a whole number {low}..{high}, got {text!r}")
        return value

    return convert


def _bytes(name: str) -> Any:
    def convert(text: str) -> int:
        value = units.parse_bytes(text)
        low, high = RANGES[name]
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"expected whole bytes (24576, 24KiB, 1.5 KiB, 2 MiB) up to {high} B, got {text!r}"
            )
        return value

    return convert


def _size(text: str) -> tuple[int, int]:
    """``1024x700`` (or ``1024×700``) -> (1024, 700); at least 320x240."""
    parts = text.lower().replace("×", "x").split("x")
    if len(parts) == 2 and all(p.strip().isdigit() for p in parts):
        w, h = (int(p) for p in parts)
        if w >= 320 and h >= 240:
            return (w, h)
    raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT of at least 320x240, e.g. 1024x700, got {text!r}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="occupancy-gui", description="Exact GPU occupancy calculator for NVIDIA and AMD GPUs (desktop GUI)."
    )
    parser.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help="a session (.occsession) to open, compiler output to import (ptxas -v log, cubin, a Triton "
        "cache folder, ...), or a .ptx/.cu source to compile (with --arch)",
    )
    parser.add_argument(
        "--device", metavar="NAME", help='device profile: sm_90, 9.0, H100, MI300X, "RX 7900 XTX", gfx942, ...'
    )
    parser.add_argument("--arch", metavar="sm_XY", help="with a .ptx or .cu FILE: the architecture to compile for")
    for name in WINDOW_OPTIONS:  # the field table's flags, as `occupancy calc` spells them
        f = fields.FIELD[name]
        kind = _bytes(name) if f.kind == fields.BYTES else _count(name)
        assert f.flag is not None  # each of WINDOW_OPTIONS has one
        parser.add_argument(f.flag, type=kind, metavar="B" if f.kind == fields.BYTES else "N", help=f.help)
    parser.add_argument("--screenshot", type=Path, metavar="OUT.png", help="render the window to a PNG and exit")
    parser.add_argument(
        "--size",
        type=_size,
        metavar="WxH",
        default=SCREENSHOT_SIZE,
        help=f"with --screenshot: the window size (default {SCREENSHOT_SIZE[0]}x{SCREENSHOT_SIZE[1]})",
    )
    parser.add_argument(
        "--docks",
        metavar="all|none|NAME,...",
        default=None,
        help="with --screenshot: the docks to open (advisor, heatmap, waves, kernel_table, compare, "
        "every_gpu, ...); default: as the session left them",
    )
    parser.add_argument(
        "--tour",
        type=int,
        metavar="STEP",
        default=None,
        help="with --screenshot: show step STEP of Help → Take the tour (0: the first-launch offer)",
    )
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="load every bundled profile, check a worked example, render the window offscreen; exit 0 or 1",
    )
    parser.add_argument(
        "--print-state",
        action="store_true",
        help="print the session the window starts with (after any autosave restore) as JSON and exit",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return parser


def _load_catalog(use_cache: bool = True) -> Catalog:
    # Loaded here, after the command line is read: `--help` and a bad option answer without them.
    from PySide6.QtCore import QStandardPaths  # noqa: PLC0415 - see above

    from ..paths import data_dir  # noqa: PLC0415 - see above
    from ..profiles import ProfileError, user_profile_dir  # noqa: PLC0415 - see above
    from .support.catalog_cache import CACHE_NAME, load_catalog  # noqa: PLC0415 - see above

    _set_application_names()
    cache = None
    if use_cache:
        location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.CacheLocation)
        cache = Path(location) / CACHE_NAME if location else None
    try:
        catalog = load_catalog(data_dir("device_profiles"), user_profile_dir(), cache)
    except (ProfileError, FileNotFoundError) as exc:
        raise UsageError(f"cannot load device profiles: {exc}") from None
    for error in catalog.errors:
        print(f"occupancy-gui: warning: skipped user profile: {error}", file=sys.stderr)
    if not catalog.profiles:
        raise UsageError("no device profiles found (device_profiles/ is empty)")
    return catalog


def initial_inputs(args: argparse.Namespace, catalog: Catalog, saved: dict[str, Any]) -> dict[str, Any]:
    """Defaults, then saved inputs, then explicit options: later ones win.

    A FILE of compiler output is read by the window's import panel, which applies its kernel through the one
    rule of ``record_launch`` with these options over it.
    """
    inputs: dict[str, Any] = dict(DEFAULT_INPUTS)
    inputs["device"] = (
        DEFAULT_DEVICE if DEFAULT_DEVICE in {p.name for p in catalog.profiles} else catalog.profiles[0].name
    )
    inputs.update({k: v for k, v in saved.items() if k not in RANGES or v is None or RANGES[k][0] <= v <= RANGES[k][1]})
    device = args.device
    if device is None and args.arch and args.file and args.file.lower().endswith((".ptx", ".cu")):
        device = args.arch.strip().lower().rstrip("af")  # compiled for sm_90: the sm_90 device, as an import does
        if device not in {p.name for p in catalog.profiles}:
            device = None
    if device is not None:
        try:
            inputs["device"] = find_profile(device, catalog).name
        except KeyError as exc:
            raise UsageError(str(exc.args[0]) if exc.args else str(exc)) from None
    inputs.update(explicit_options(args))
    return inputs


def explicit_options(args: argparse.Namespace) -> dict[str, Any]:
    """The inputs the command line set (:data:`WINDOW_OPTIONS` given a value)."""
    return {name: getattr(args, name) for name in WINDOW_OPTIONS if getattr(args, name) is not None}


def _excepthook(kind: type[BaseException], value: BaseException, tb: Any) -> None:
    """Keep the application alive on an unexpected error and say what happened."""
    text = "".join(traceback.format_exception(kind, value, tb))
    print(text, file=sys.stderr)
    if QApplication.instance() is not None:
        QMessageBox.critical(None, "Unexpected error", f"{kind.__name__}: {value}\n\nDetails were written to stderr.")


def _set_application_names() -> None:
    """Names that QSettings and QStandardPaths use for their files."""
    QCoreApplication.setOrganizationName(ORGANIZATION)
    QCoreApplication.setApplicationName(APPLICATION)
    QCoreApplication.setApplicationVersion(__version__)


def application() -> QApplication:
    """The one QApplication (created here unless a test or host already made one)."""
    app = QApplication.instance()
    if app is None:
        QApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        app = QApplication(sys.argv[:1])
    _set_application_names()
    QApplication.setWindowIcon(app_icon())
    return app  # type: ignore[return-value]  # instance() is typed QCoreApplication; this one is a QApplication


def process_events_until_idle(app: QCoreApplication, rounds: int = 5) -> None:
    """Let zero timers, layouts and paints run (the screenshot path and the benchmark use it)."""
    for _ in range(rounds):
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)


def take_screenshot(
    window: MainWindow, path: Path, size: tuple[int, int] = SCREENSHOT_SIZE, docks: str | None = None
) -> None:
    """Render the window at ``size`` with ``docks`` open (``all``, ``none``, names; ``None``: as they are)."""
    from .support.window_layout import parse_docks, show_docks  # noqa: PLC0415 - lazy: only for screenshots

    app = QApplication.instance()
    assert app is not None  # the window exists, so the application does
    chosen = parse_docks(docks, window) if docks is not None else None  # a bad name fails before any work
    window.resize(*size)
    window.show()
    process_events_until_idle(app)
    if chosen is not None:
        show_docks(window, chosen)
        process_events_until_idle(app)
    window.bridge.flush()
    process_events_until_idle(app)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not window.grab().save(str(path), "PNG"):
        raise OSError(f"cannot write {path}")


def close_without_asking(window: MainWindow) -> None:
    """Close the window without "Save changes?" (screenshots, timed smoke runs: nobody to answer)."""
    window.session_io.confirm_unsaved = False
    window.close()


class _WindowFactory:
    """The self-test's way to build, render and close the window exactly as the application does."""

    def create(self, argv: list[str]) -> MainWindow:
        return create_window(argv)[1]

    def screenshot(self, window: MainWindow, path: Path) -> None:
        take_screenshot(window, path)

    def close(self, window: MainWindow) -> None:
        close_without_asking(window)


QUIT_AFTER_ENV = "OCCUPANCY_GUI_QUIT_AFTER"
"""Milliseconds after which a launched window quits by itself (bundle smoke tests, start-up timing)."""


def create_window(argv: list[str] | None = None) -> tuple[QApplication, MainWindow, argparse.Namespace]:
    """Parse ``argv`` and build the application and the (not yet shown) main window.

    Raises ``UsageError`` for a bad command line.
    """
    args = build_parser().parse_args(argv)
    catalog = _load_catalog()
    app = application()
    settings = None if args.screenshot else QSettings()
    saved = load_inputs(settings, catalog) if settings is not None else {}
    state, args.session_file = _session_file(args, catalog)
    if state is not None:  # a session file's inputs sit between the saved ones and explicit options
        saved = {**saved, **dataclasses.asdict(state.inputs)}
    if args.file and not (Path(args.file).is_file() or Path(args.file).is_dir()):  # a folder: a kernel cache
        raise UsageError(f"{args.file}: no such file")
    try:
        session = Session(catalog, **initial_inputs(args, catalog, saved))
    except InputRefused as exc:  # --threads against a session file's launch bound or required size
        raise UsageError(str(exc)) from None
    # The window's modules load after the command line and the catalog: a bad option answers at once.
    from .main_window import MainWindow  # noqa: PLC0415 - see above
    from .session_files.session_io import start_session  # noqa: PLC0415 - see above

    window = MainWindow(session, settings)
    start_session(window.session_io, args, state)
    _import_in_window(window, args)
    return app, window, args


def _import_in_window(window: MainWindow, args: argparse.Namespace) -> None:
    """Read FILE (compiler output) through the window's import panel, in the background.

    Explicit options still win over the imported kernel; without ``--device`` the device follows the
    kernel's architecture, as before.
    """
    if not args.file:
        return
    if args.file.lower().endswith((".ptx", ".cu")):
        window.source.open(args.file, args.arch)  # compiled, then watched: a save recompiles
        return
    window.import_panel.load(args.file, match_device=args.device is None, overrides=explicit_options(args))


def _session_file(args: argparse.Namespace, catalog: Catalog) -> tuple[SessionState | None, Path | None]:
    """The session file FILE names (then FILE is not imported as compiler output), or ``(None, None)``."""
    from ..session import file as session_file  # noqa: PLC0415 - lazy: with a FILE only (it loads YAML to read one)

    if not args.file or not session_file.is_session_file(args.file):
        return None, None
    try:
        state = session_file.load(args.file, catalog)
    except session_file.SessionFileError as exc:
        raise UsageError(str(exc)) from None
    path, args.file = Path(args.file), None
    return state, path


def _finish_import(window: MainWindow) -> None:
    """Screenshot mode: wait for FILE's import or compile, and say on stderr if it failed."""
    if window.source.busy:
        window.source.wait()
    panel = window.import_panel
    if panel.loading:
        panel.wait_for_import()
        if panel.banner.text():
            print(f"occupancy-gui: warning: {panel.banner.text()}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``occupancy-gui``; returns the exit status (2 for a bad command line)."""
    if "--self-test" in (sys.argv[1:] if argv is None else argv):
        from .self_test import run  # noqa: PLC0415 - lazy: only for --self-test

        return run(_WindowFactory())
    try:
        app, window, args = create_window(argv)
    except UsageError as exc:
        print(f"occupancy-gui: error: {exc}", file=sys.stderr)
        return 2
    if args.screenshot:
        try:
            _finish_import(window)
            if args.tour is not None:
                window.help.start_tour(args.tour, welcome=True)  # step 0 is the welcome offer
            take_screenshot(window, args.screenshot, args.size, args.docks)
        except ValueError as exc:  # --docks named a dock this window does not have
            print(f"occupancy-gui: error: {exc}", file=sys.stderr)
            return 2
        except OSError as exc:
            print(f"occupancy-gui: error: {exc}", file=sys.stderr)
            return 1
        finally:
            close_without_asking(window)
            window.deleteLater()
        print(f"wrote {args.screenshot}")
        return 0
    if args.print_state:
        from .session_files.session_io import print_state  # noqa: PLC0415 - loaded with the window already

        print_state(window.session_io)
        close_without_asking(window)
        window.deleteLater()
        return 0
    window.show()
    quit_after = os.environ.get(QUIT_AFTER_ENV, "")
    if quit_after.isdigit():
        QTimer.singleShot(int(quit_after), lambda: close_without_asking(window))
    else:  # an interactive start: the first one offers the tour (a timed smoke run has nobody to offer it to)
        window.help.offer_tour_once()
    if sys.excepthook is sys.__excepthook__:
        sys.excepthook = _excepthook  # from here on, errors in slots show a dialog instead of vanishing
    try:
        return app.exec()
    finally:
        sys.excepthook = sys.__excepthook__
