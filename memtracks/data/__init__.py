"""The data files memtracks reads (``rules/`` and ``lexicons/``): one schema and loader per
file, each failing with the file's name, entry and field. :class:`memtracks.toolkit.Toolkit`
holds what they load; the pipeline reads the toolkit, never the files."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memtracks.toolkit import Toolkit


def load(rules_dir: str | Path | None = None, lexicons_dir: str | Path | None = None, **tools: Any) -> Toolkit:
    """Every data file, bundled and yours (``rules_dir`` / ``lexicons_dir``, see
    :mod:`memtracks.data.userdata`), loaded and validated into a :class:`~memtracks.toolkit.Toolkit`;
    ``tools``: ``chinese_ner``, ``hanlp_model`` or ``nlp`` (language tools already loaded)."""
    from memtracks.toolkit import Toolkit  # the toolkit stands on the loaders of this package

    return Toolkit.load(rules_dir=rules_dir, lexicons_dir=lexicons_dir, **tools)
