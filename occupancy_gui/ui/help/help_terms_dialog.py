"""Help → Occupancy terms: the terms of ``ui.terms`` as one page, each under its own anchor."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from ..support.terms import TERMS, TERMS_BY_KEY

INTRO = (
    "<p>The words the window uses, in plain terms. Hover over a figure in the window for the short "
    "form; Help → Take the tour shows where each part of the window is.</p>"
)


def terms_html() -> str:
    contents = " · ".join(f'<a href="#{t.key}">{html.escape(t.title)}</a>' for t in TERMS)
    sections = "".join(f'<h3><a name="{t.key}"></a>{html.escape(t.title)}</h3>{t.body}' for t in TERMS)
    return f"<h2>Occupancy terms</h2>{INTRO}<p>{contents}</p>{sections}"


class TermsDialog(QDialog):
    """A non-modal page of every term; :meth:`show_term` scrolls to one."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("terms_dialog")
        self.setWindowTitle("Occupancy terms")
        self.browser = QTextBrowser(self)
        self.browser.setOpenLinks(True)  # the contents line's #anchors scroll within the page
        self.browser.setOpenExternalLinks(False)
        self.browser.setHtml(terms_html())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, Qt.Orientation.Horizontal, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(buttons)
        self.resize(640, 600)

    def show_term(self, key: str) -> None:
        """Scroll to term ``key`` (a key of ``ui.terms``)."""
        if key not in TERMS_BY_KEY:
            raise KeyError(f"unknown term {key!r}; known: {', '.join(TERMS_BY_KEY)}")
        self.browser.scrollToAnchor(key)
