"""The constraint table model: Qt's model contract, markers, roles and TSV."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from occupancy_gui.engine import Limit
from occupancy_gui.ui.calculator.constraint_model import (
    BINDING_MARK,
    BLOCKS_COLUMN,
    COLUMNS,
    ESTIMATE_COLUMN,
    ROUNDING_NOTE,
    ConstraintTableModel,
)


@pytest.fixture
def model(qtmodeltester, session):
    m = ConstraintTableModel()
    m.set_result(session.result)
    return m


def rows_by_limit(model):
    return {model.row(r).limit: r for r in range(model.rowCount())}


def test_qt_model_contract(qtmodeltester, model, session):
    qtmodeltester.check(model)
    session.replace(device="sm_86")  # fewer rows: no barrier row before CC 9.0
    model.set_result(session.result)
    qtmodeltester.check(model)
    model.set_result(None)
    qtmodeltester.check(model)
    assert model.rowCount() == 0


def test_seed_example_marks_registers(model):
    rows = rows_by_limit(model)
    r = rows[Limit.REGISTERS]
    assert model.index(r, 0).data().startswith(BINDING_MARK)
    assert model.index(r, BLOCKS_COLUMN).data() == "4"
    assert "Binding" in model.index(r, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert model.index(r, 0).data(Qt.ItemDataRole.BackgroundRole) is not None
    assert model.index(r, 0).data(Qt.ItemDataRole.FontRole).bold()
    other = rows[Limit.SHARED_MEMORY]
    assert not model.index(other, 0).data().startswith(BINDING_MARK)
    assert model.index(other, 0).data(Qt.ItemDataRole.BackgroundRole) is None
    assert model.index(other, BLOCKS_COLUMN).data() == "9"


def test_ties_all_marked(model, session):
    session.replace(registers=32)
    model.set_result(session.result)
    marked = {model.row(r).limit for r in range(model.rowCount()) if model.is_binding(r)}
    assert marked == {Limit.WARPS, Limit.REGISTERS}


def test_rounding_flagged(model, session):
    session.replace(registers=33)  # T·R estimate 7 blocks; allocation per warp rounds to 1280 → 6
    model.set_result(session.result)
    r = rows_by_limit(model)[Limit.REGISTERS]
    assert model.index(r, BLOCKS_COLUMN).data() == "6" and model.index(r, ESTIMATE_COLUMN).data() == "7"
    assert ROUNDING_NOTE in model.index(r, len(COLUMNS) - 1).data()
    assert "rounding" in model.index(r, 0).data(Qt.ItemDataRole.ToolTipRole)


def test_no_binding_marks_when_nothing_fits(model, session):
    session.replace(threads=1025)
    model.set_result(session.result)
    assert not any(model.is_binding(r) for r in range(model.rowCount()))


def test_tsv(model):
    lines = model.to_tsv().splitlines()
    assert lines[0].split("\t") == list(COLUMNS)
    assert len(lines) == model.rowCount() + 1
    assert all(len(line.split("\t")) == len(COLUMNS) for line in lines)
