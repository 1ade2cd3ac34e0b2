"""Help → About: version, the reference header, and the formulas the engine applies."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from ... import REFERENCE_HEADER, __version__

FORMULAS = """
<h3>Formulas</h3>
<p>For a block of <i>T</i> threads using <i>R</i> registers per thread and <i>S</i> bytes of shared
memory (static + dynamic), on an SM with <i>W</i><sub>SM</sub> warps, <i>R</i><sub>SM</sub>
registers, <i>S</i><sub>SM</sub> bytes of shared memory and <i>B</i><sub>max</sub> block slots:</p>
<ul>
<li>Warps per block: <i>W</i><sub>B</sub> = ⌈<i>T</i> / warp size⌉</li>
<li>Blocks: <i>B</i><sub>max</sub> from the architecture table</li>
<li>Warps: ⌊<i>W</i><sub>SM</sub> / <i>W</i><sub>B</sub>⌋ (and <i>T</i> ≤ max threads per block)</li>
<li>Registers: per warp <i>R</i><sub>w</sub> = ⌈<i>R</i> · 32 / 256⌉ · 256; blocks =
 ⌊⌊(<i>R</i><sub>SM</sub> / sub-partitions) / <i>R</i><sub>w</sub>⌋ · sub-partitions / <i>W</i><sub>B</sub>⌋</li>
<li>Shared memory: allocated <i>S</i><sub>a</sub> = ⌈(<i>S</i> + reserved) / unit⌉ · unit; the SM runs the
 carveout preference aligned up to a supported configuration (grown if one block needs more);
 blocks = ⌊<i>S</i><sub>SM,config</sub> / <i>S</i><sub>a</sub>⌋</li>
<li>Block barriers (CC ≥ 9.0): ⌊barriers per SM / barriers per block⌋</li>
<li>Resident blocks <i>B</i> = min of the above; occupancy = <i>B</i> · <i>W</i><sub>B</sub> /
 <i>W</i><sub>SM</sub></li>
</ul>
<p>The <b>first-pass estimate</b> shown beside the result uses the same minimum with no rounding:
<i>T</i>·<i>R</i> registers and <i>S</i> bytes per block.  Where the two differ, allocation
granularity moved the boundary.</p>
"""


def about_html() -> str:
    return (
        f"<h2>Occupancy calculator {__version__}</h2>"
        f"<p>An exact CUDA occupancy calculator.  Results reproduce<br><b>{REFERENCE_HEADER}</b><br>"
        f"bit for bit; the test suite checks them against that header.</p>" + FORMULAS
    )


class AboutDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("About Occupancy calculator")
        self.browser = QTextBrowser(self)
        self.browser.setOpenExternalLinks(False)
        self.browser.setHtml(about_html())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, Qt.Orientation.Horizontal, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(buttons)
        self.resize(620, 560)
