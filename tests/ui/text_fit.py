"""Every text the window shows, measured against the room its widget gives it: what does not fit is a finding.

``cut_texts(window)`` walks the visible widgets of a window (labels, buttons, check boxes, combo and spin boxes,
line edits, tab bars, group box and dock titles, header sections and the cells of item views) and returns one
line per text that its widget cuts: wider than the room, or a wrapped label shorter than its lines.  A view may
elide a column on purpose where the whole text is its tooltip (kernel names of 1,865 characters): such columns
are named by the view's ``ELIDED_COLUMNS`` (a set of column numbers) and skipped.

``python -m tests.ui.text_fit WxH DOCKS`` prints the findings of a fresh window (the 1.5× scale check runs it
in a process of its own, since ``QT_SCALE_FACTOR`` is read when the application starts).
"""

from __future__ import annotations

import sys

from PySide6 import QtGui
from PySide6.QtCore import QModelIndex, QRect, Qt
from PySide6.QtGui import QFontMetrics, QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractScrollArea,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDockWidget,
    QGraphicsView,
    QGroupBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QScrollArea,
    QStyle,
    QStyleOptionComboBox,
    QStyleOptionHeader,
    QTabBar,
    QToolButton,
    QWidget,
)
from PySide6.QtWidgets import (
    QGraphicsTextItem as QtWidgetsTextItem,
)

SLACK = 1
"""Pixels of rounding a text may overrun its room by (font metrics are fractional)."""
MAX_ROWS = 60
"""Item-view rows measured per view (the first ones shown)."""


def _name(widget: QWidget) -> str:
    parts = []
    w: QWidget | None = widget
    while w is not None and len(parts) < 4:
        parts.append(w.objectName() or type(w).__name__)
        w = w.parentWidget()
    return "/".join(reversed(parts))


def _shown(widget: QWidget) -> bool:
    """Visible on screen: shown, not zero-sized, and not clipped away entirely by its ancestors."""
    if not widget.isVisible() or widget.width() <= 0 or widget.height() <= 0:
        return False
    seen = widget.viewport() if isinstance(widget, QAbstractScrollArea) else widget  # the viewport covers it
    if seen.visibleRegion().isEmpty():
        return False
    parent = widget.parentWidget()
    while parent is not None:  # a dock tabbed behind another is not drawn, though its widgets say visible
        if isinstance(parent, QDockWidget) and (not parent.isVisible() or parent.visibleRegion().isEmpty()):
            return False
        parent = parent.parentWidget()
    return True


def _label_problem(label: QLabel) -> str | None:
    text = label.text()
    if not text or label.pixmap() is not None and not label.pixmap().isNull():
        return None
    room = label.contentsRect()
    margin = label.margin() * 2 + label.indent() if label.indent() > 0 else label.margin() * 2
    rich = label.textFormat() == Qt.TextFormat.RichText or (
        label.textFormat() == Qt.TextFormat.AutoText and QtGui.Qt.mightBeRichText(text)
    )
    if label.wordWrap():
        needed = label.heightForWidth(label.width())
        if needed > label.height() + SLACK:
            return f"wrapped text needs {needed} px of height, has {label.height()}"
        if rich:
            return None
        longest = max((QFontMetrics(label.font()).horizontalAdvance(word) for word in text.split()), default=0)
        if longest > room.width() - margin + SLACK:
            return f"a word of {longest} px in {room.width()} px"
        return None
    if rich:
        doc = QTextDocument()
        doc.setDefaultFont(label.font())
        doc.setHtml(text)
        doc.setDocumentMargin(0)
        width, height = doc.idealWidth(), doc.size().height()
    else:
        if label.buddy() is not None:  # "&Threads" shows as "Threads" (a literal & is written "&&")
            text = text.replace("&&", "\0").replace("&", "").replace("\0", "&")
        metrics = QFontMetrics(label.font())
        lines = text.split("\n")
        width = max(metrics.horizontalAdvance(line) for line in lines)
        height = metrics.height() * len(lines)
    if width > room.width() - margin + SLACK:
        return f"{width:.0f} px of text in {room.width()} px"
    if height > room.height() + SLACK + 2:
        return f"{height:.0f} px of text height in {room.height()} px"
    return None


def _button_problem(button: QAbstractButton) -> str | None:
    if (
        not button.text()
        or isinstance(button, QToolButton)
        and button.toolButtonStyle() == Qt.ToolButtonStyle.ToolButtonIconOnly
    ):
        return None
    hint = button.sizeHint()
    if hint.width() > button.width() + SLACK:
        return f"needs {hint.width()} px, has {button.width()}"
    return None


def _combo_problem(combo: QComboBox) -> str | None:
    text = combo.currentText()
    if not text:
        return None
    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    field = combo.style().subControlRect(
        QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, combo
    )
    width = QFontMetrics(combo.font()).horizontalAdvance(text)
    if combo.iconSize().width() and not combo.itemIcon(combo.currentIndex()).isNull():
        width += combo.iconSize().width() + 4
    if width > field.width() + SLACK:
        return f"'{text}': {width} px in {field.width()} px"
    return None


def _edit_problem(edit: QLineEdit) -> str | None:
    text = edit.text() or edit.placeholderText()
    if not text:
        return None
    room = edit.contentsRect().width() - 2 * edit.textMargins().left() - 4  # the frame's inner margin
    width = QFontMetrics(edit.font()).horizontalAdvance(text)
    if width > room + SLACK:
        return f"'{text}': {width} px in {room} px"
    return None


def _tab_problems(bar: QTabBar) -> list[str]:
    out = []
    for i in range(bar.count()):
        if not bar.isTabVisible(i):
            continue  # not shown (the barrier plot's tab on an AMD device)
        text = bar.tabText(i)
        rect = bar.tabRect(i)
        needed = bar.tabSizeHint(i)
        horizontal = bar.shape() in (QTabBar.Shape.RoundedNorth, QTabBar.Shape.RoundedSouth)
        if horizontal and needed.width() > rect.width() + SLACK:
            out.append(f"tab '{text}': needs {needed.width()} px, has {rect.width()}")
    return out


def _title_problem(widget: QGroupBox | QDockWidget) -> str | None:
    title = widget.title() if isinstance(widget, QGroupBox) else widget.windowTitle()
    width = QFontMetrics(widget.font()).horizontalAdvance(title.replace("&", ""))
    room = widget.width() - (60 if isinstance(widget, QDockWidget) else 16)  # a dock's float and close buttons
    if width > room + SLACK:
        return f"title '{title}': {width} px in {room} px"
    return None


def _header_problems(header: QHeaderView) -> list[str]:
    model = header.model()
    if model is None:
        return []
    out = []
    count = model.columnCount() if header.orientation() == Qt.Orientation.Horizontal else 0
    for section in range(count):
        if header.isSectionHidden(section) or header.sectionSize(section) == 0:
            continue
        text = model.headerData(section, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole)
        if not text:
            continue
        option = QStyleOptionHeader()
        header.initStyleOption(option)
        option.section = section
        option.text = str(text)
        lines = str(text).split("\n")
        metrics = QFontMetrics(header.font())
        width = max(metrics.horizontalAdvance(line) for line in lines) + 2 * header.style().pixelMetric(
            QStyle.PixelMetric.PM_HeaderMargin, option, header
        )
        if header.isSortIndicatorShown() and header.sortIndicatorSection() == section:
            width += header.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMarkSize, option, header)
        if width > header.sectionSize(section) + SLACK:
            out.append(f"header '{' '.join(lines)}': {width} px in {header.sectionSize(section)} px")
        if metrics.height() * len(lines) > header.height() + SLACK:
            out.append(f"header '{' '.join(lines)}': {metrics.height() * len(lines)} px of height in {header.height()}")
    return out


def _cell_problems(view: QAbstractItemView) -> list[str]:
    model = view.model()
    if model is None or not hasattr(view, "columnWidth"):
        return []
    elided = getattr(view, "ELIDED_COLUMNS", None)
    if elided is None:
        source = getattr(model, "sourceModel", lambda: None)()
        elided = getattr(source or model, "ELIDED_COLUMNS", set())
    out = []
    metrics = QFontMetrics(view.font())
    margin = 2 * (view.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1)
    for row in range(min(model.rowCount(), MAX_ROWS)):
        if getattr(view, "isRowHidden", None) and view.isRowHidden(row):
            continue
        for column in range(model.columnCount()):
            if column in elided or view.isColumnHidden(column):
                continue
            index = model.index(row, column, QModelIndex())
            text = index.data(Qt.ItemDataRole.DisplayRole)
            if text is None or text == "":
                continue
            font = index.data(Qt.ItemDataRole.FontRole)
            m = QFontMetrics(font) if font is not None else metrics
            lines = str(text).split("\n")
            width = max(m.horizontalAdvance(line) for line in lines) + margin
            rect: QRect = view.visualRect(index)
            if getattr(view, "wordWrap", lambda: False)() and rect.width():
                room = QRect(0, 0, rect.width() - margin, 100_000)
                needed = m.boundingRect(room, int(Qt.TextFlag.TextWordWrap), str(text))
                longest = max((m.horizontalAdvance(word) for word in str(text).split()), default=0)
                if longest > rect.width() - margin + SLACK:
                    out.append(f"cell ({row}, {column}): a word of {longest} px in {rect.width()} px")
                if needed.height() > rect.height() + SLACK:
                    out.append(
                        f"cell ({row}, {column}) '{' '.join(lines)[:40]}': wraps to {needed.height()} px of "
                        f"height in {rect.height()} px"
                    )
                continue
            if rect.width() and width > rect.width() + SLACK:
                out.append(f"cell ({row}, {column}) '{' '.join(lines)[:40]}': {width} px in {rect.width()} px")
            if rect.height() and m.height() * len(lines) > rect.height() + SLACK:
                out.append(
                    f"cell ({row}, {column}) '{' '.join(lines)[:40]}': {m.height() * len(lines)} px of height "
                    f"in {rect.height()} px"
                )
    return out


def _scroll_problem(view: QAbstractItemView) -> str | None:
    """Columns running past the view's right edge (a header cut at "SM capacit"), unless the view scrolls on
    purpose (``SCROLLS_HORIZONTALLY``: the kernel table's many columns)."""
    source = getattr(view.model(), "sourceModel", lambda: None)()
    if getattr(view, "SCROLLS_HORIZONTALLY", False) or getattr(source or view.model(), "SCROLLS_HORIZONTALLY", False):
        return None
    bar = view.horizontalScrollBar()
    if bar.isVisible() and bar.maximum() > 0:
        heads = [str(view.model().headerData(c, Qt.Orientation.Horizontal)) for c in range(view.model().columnCount())]
        return f"columns run {bar.maximum()} px past the view's width ({', '.join(heads)[:60]})"
    return None


def _form_scroll_problem(area: QScrollArea) -> str | None:
    """A form wider than the room its scroll area has: its right part is cut at the edge."""
    bar = area.horizontalScrollBar()
    if bar.isVisible() and bar.maximum() > 0:
        return f"its contents run {bar.maximum()} px past the width (cut at the right edge)"
    return None


def _graphics_problems(view: QWidget) -> list[str]:
    """pyqtgraph's texts: inside their plot (an axis title or a region label cut at the edge: "hared memory"), and
    no two labels of one plot on top of each other."""
    import pyqtgraph as pg

    scene = view.scene()
    viewport = view.viewport().rect()
    texts = []
    out = []
    for item in scene.items():
        if not item.isVisible() or item.opacity() == 0:
            continue
        if isinstance(item, pg.TextItem):
            text = item.textItem.toPlainText()
        elif isinstance(item, QtWidgetsTextItem) and isinstance(item.parentItem(), (pg.AxisItem, pg.LabelItem)):
            text = item.toPlainText()
        else:
            continue
        if not text.strip():
            continue
        rect = view.mapFromScene(item.sceneBoundingRect()).boundingRect()
        if not viewport.contains(rect.adjusted(SLACK, SLACK, -SLACK, -SLACK)):
            out.append(f"plot text '{text[:40]}' is cut by the plot's edge")
        box = _view_box(item)
        if box is not None:
            inner = view.mapFromScene(box.sceneBoundingRect()).boundingRect()
            if not inner.contains(rect.adjusted(SLACK, SLACK, -SLACK, -SLACK)):
                out.append(f"plot label '{text[:40]}' runs outside its plot area")
        texts.append((text, rect, box))
    for i, (a, ra, box_a) in enumerate(texts):
        for b, rb, box_b in texts[i + 1 :]:
            if box_a is box_b and ra.adjusted(SLACK, SLACK, -SLACK, -SLACK).intersects(rb):
                out.append(f"plot labels '{a[:30]}' and '{b[:30]}' overlap")
    return out


def _view_box(item: object) -> object | None:
    import pyqtgraph as pg

    parent = item.parentItem()  # type: ignore[attr-defined]  # a pyqtgraph item, typed as object here
    while parent is not None and not isinstance(parent, pg.ViewBox):
        parent = parent.parentItem()
    return parent


def _dock_of(widget: QWidget) -> QDockWidget | None:
    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, QDockWidget):
        parent = parent.parentWidget()
    return parent


def cut_texts(root: QWidget, dock: QDockWidget | None = None) -> list[str]:
    """One line per text ``root``'s visible widgets cut (see the module's docstring); with ``dock``, the widgets of
    other docks are left out (a tab group shows one dock at a time)."""
    found: list[str] = []
    widgets = [root, *root.findChildren(QWidget)]
    for widget in widgets:
        if not _shown(widget):
            continue
        owner = widget if isinstance(widget, QDockWidget) else _dock_of(widget)
        if dock is not None and owner is not None and owner is not dock:
            continue
        problems: list[str] = []
        if isinstance(widget, QLabel):
            problems.append(_label_problem(widget) or "")
        elif (
            isinstance(widget, QAbstractButton)
            and widget.parentWidget() is not None
            and not isinstance(widget.parentWidget(), (QTabBar, QHeaderView))
        ):
            problems.append(_button_problem(widget) or "")
        elif isinstance(widget, QComboBox):
            problems.append(_combo_problem(widget) or "")
        elif isinstance(widget, QLineEdit) and not isinstance(widget.parentWidget(), QComboBox):
            if not isinstance(widget.parentWidget(), QAbstractSpinBox):
                problems.append(_edit_problem(widget) or "")
        elif isinstance(widget, QAbstractSpinBox):
            edit = widget.findChild(QLineEdit)
            if edit is not None:
                problems.append(_edit_problem(edit) or "")
        elif isinstance(widget, QTabBar):
            problems += _tab_problems(widget)
        elif isinstance(widget, QHeaderView):
            problems += _header_problems(widget)
        if isinstance(widget, (QGroupBox, QDockWidget)):
            problems.append(_title_problem(widget) or "")
        if isinstance(widget, QAbstractItemView) and not isinstance(widget, QHeaderView):
            problems += _cell_problems(widget)
            problems.append(_scroll_problem(widget) or "")
        if isinstance(widget, QGraphicsView):
            problems += _graphics_problems(widget)
        if isinstance(widget, QScrollArea):
            problems.append(_form_scroll_problem(widget) or "")
        if isinstance(widget, (QLabel, QAbstractButton, QComboBox, QAbstractSpinBox, QAbstractItemView, QGroupBox)):
            shown = (widget.viewport() if isinstance(widget, QAbstractScrollArea) else widget).visibleRegion()
            seen = shown.boundingRect()
            full = (widget.viewport() if isinstance(widget, QAbstractScrollArea) else widget).rect()
            if seen.width() < full.width() - SLACK - 1 and not isinstance(
                widget.parentWidget(), (QTabBar, QHeaderView)
            ):
                problems.append(f"cut at the side by its container: {seen.width()} of {full.width()} px shown")
        found += [f"{_name(widget)}: {p}" for p in problems if p]
    return found


def main(argv: list[str]) -> int:
    """``WxH DOCKS [amd]``: build the window as the application does (on an AMD device with ``amd``), show it at WxH
    with DOCKS open, print findings."""
    from occupancy_gui.ui.app import close_without_asking, create_window, process_events_until_idle
    from occupancy_gui.ui.support.window_layout import parse_docks, show_docks

    size, docks = argv[0], argv[1]
    width, height = (int(v) for v in size.split("x"))
    app, window, _args = create_window(["--screenshot", "/dev/null"])
    if argv[2:] == ["amd"]:  # the window on an AMD device, both answers differing (test_legibility's AMD case)
        from tests.ui.test_legibility import AMD_CASE

        with window.session.batch():
            window.session.replace(**AMD_CASE)
    window.resize(width, height)
    window.show()
    process_events_until_idle(app)
    chosen = parse_docks(docks, window)
    show_docks(window, chosen)
    process_events_until_idle(app)  # the docks' own raise-when-opened timers first
    for dock in chosen or [None]:
        if dock is not None:
            dock.raise_()
        process_events_until_idle(app)
        if dock is not None and dock.visibleRegion().isEmpty():
            print(f"[{dock.objectName()}] not shown: the walk cannot see it")
        window.bridge.flush()
        process_events_until_idle(app)
        for line in cut_texts(window, dock):
            print(f"[{dock.objectName() if dock is not None else 'no dock'}] {line}")
    close_without_asking(window)
    del app
    return 0


if __name__ == "__main__":
    QApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
    sys.exit(main(sys.argv[1:]))
