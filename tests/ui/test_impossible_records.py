"""A record with a figure no GPU can have is listed and flagged, never loaded into the inputs (it used
to break a slot, leave the table and summary disagreeing, or fail the import with OverflowError)."""

from __future__ import annotations

from occupancy_gui.importers import KernelRecord
from occupancy_gui.kernel_table import KernelTable, record_notes, record_tags
from tests.importers.test_hostile_containers import patched_cubin
from tests.ui.test_import_panel import load, select


def test_the_table_holds_figures_beyond_int64() -> None:
    records = [KernelRecord("huge", "sm_90", 10**30, static_smem=1 << 70), KernelRecord("fine", "sm_90", 32)]
    table = KernelTable.from_records("x.log", records)
    assert set(table.impossible) == {0}
    assert table.registers[1] == 32 and table.registers[0] > 255
    assert "impossible figures" in record_tags(records[0]) and not record_tags(records[1])
    assert any("Impossible registers" in note for note in record_notes(records[0]))


def test_selecting_an_impossible_record_keeps_the_inputs(qtbot, window, tmp_path) -> None:
    path = tmp_path / "absurd.cubin"
    path.write_bytes(patched_cubin("smem"))
    panel = window.import_panel
    load(qtbot, panel, path)
    session = window.session
    select(panel, "_ZN3occ9tiled_sumILi128EEEvPKfPfi", "sm_80")
    before = session.inputs
    select(panel, "_Z14named_barriersPf", "sm_80")
    assert session.inputs == before
    assert "impossible static smem" in window.statusBar().currentMessage()
    select(panel, "_ZN3occ9tiled_sumILi512EEEvPKfPfi", "sm_80")
    assert session.inputs.static_smem == 2048  # the sane ones still load
