"""Modules that moved to the role folders still import from their old paths, with a warning."""

from __future__ import annotations

import importlib
import warnings

import pytest

import memtracks
from memtracks._moved import MOVED, new_home


@pytest.mark.parametrize("old", sorted(MOVED))
def test_old_path_gives_the_same_module_with_a_warning(old: str) -> None:
    new = importlib.import_module(MOVED[old])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import sys

        sys.modules.pop(old, None)
        module = importlib.import_module(old)
    if hasattr(new, "__path__"):  # a package: a stand-in under the old name reads the package
        assert getattr(module, "__all__", None) == getattr(new, "__all__", None)
    else:
        assert module is new
        assert module.__spec__ is not None and module.__spec__.name == MOVED[old]
    assert any(issubclass(w.category, DeprecationWarning) and MOVED[old] in str(w.message) for w in caught)


def test_a_module_inside_a_moved_package_is_loaded_once() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        old = importlib.import_module("memtracks.consolidation.apply")
        from memtracks.consolidation import consolidate  # names of the package, through the old path
    new = importlib.import_module("memtracks.upkeep.consolidation.apply")
    package = importlib.import_module("memtracks.upkeep.consolidation")
    assert old is new
    assert old.__name__ == "memtracks.upkeep.consolidation.apply"
    assert consolidate is package.consolidate
    assert callable(package.apply)  # the package's function, not hidden by the submodule


def test_names_that_did_not_move_are_left_alone() -> None:
    assert new_home("memtracks.memory") is None
    assert new_home("memtracks.writers") is None  # a prefix of a name is not the name
    assert new_home("memtracks.writer.extra") == "memtracks.write.writer.extra"
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("memtracks.no_such_module")


def test_the_public_face_needs_no_old_path() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        importlib.reload(memtracks)
        from memtracks import Memory  # noqa: F401
