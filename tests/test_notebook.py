"""The exploration notebook runs headless on a small fixture, so it cannot rot."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent


def test_notebook_explore_executes(monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("MEMTRACKS_NOTEBOOK_DATA", str(ROOT / "tests" / "data" / "locomo_mini.json"))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    notebook = nbformat.read(ROOT / "notebooks" / "explore.ipynb", as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT / "notebooks")}}
    )
    client.execute()
    outputs = "".join(o.get("text", "") for cell in notebook.cells for o in cell.get("outputs", []))
    assert "conv-mini" in outputs and "Q:" in outputs
    assert any(o.get("data", {}).get("image/png") for cell in notebook.cells for o in cell.get("outputs", []))
