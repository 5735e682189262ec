"""Old module paths that still import, with a DeprecationWarning.

The package was regrouped by role (``write/``, ``retrieval/``, ``upkeep/``, ``interfaces/``,
``data/``). Code that imports a module by its old path, ``memtracks.writer`` or
``memtracks.consolidation.apply``, gets the module at its new home and a warning naming it;
the module object is the same one, so patching or reading it through either name agrees.
A moved package is reached through a stand-in module under its old name that reads every
attribute from the package itself: importing a submodule by its old path sets an attribute
on the stand-in, never on the package (where it would hide a function of the same name,
``consolidation.apply``).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType

MOVED = {
    "memtracks.audit": "memtracks.upkeep.audit",
    "memtracks.browse": "memtracks.retrieval.browse",
    "memtracks.cards": "memtracks.retrieval.cards",
    "memtracks.catalogue": "memtracks.data.catalogue",
    "memtracks.cli": "memtracks.interfaces.cli",
    "memtracks.consolidation": "memtracks.upkeep.consolidation",
    "memtracks.datafiles": "memtracks.data.files",
    "memtracks.embedders": "memtracks.retrieval.embedders",
    "memtracks.fusion": "memtracks.retrieval.fusion",
    "memtracks.gate": "memtracks.write.gate",
    "memtracks.indexes": "memtracks.retrieval.indexes",
    "memtracks.integrity": "memtracks.upkeep.integrity",
    "memtracks.io": "memtracks.interfaces.io",
    "memtracks.lexicon": "memtracks.data.lexicons",
    "memtracks.lifecycle": "memtracks.upkeep.lifecycle",
    "memtracks.manage": "memtracks.upkeep.manage",
    "memtracks.markdown_export": "memtracks.upkeep.markdown_export",
    "memtracks.markdown_import": "memtracks.upkeep.markdown_import",
    "memtracks.nlp": "memtracks.pipeline.nlp",
    "memtracks.pipeline.patterns": "memtracks.data.patterns",
    "memtracks.pipeline.timenorm.lexicon": "memtracks.data.time_words",
    "memtracks.progress": "memtracks.interfaces.progress",
    "memtracks.queue": "memtracks.write.queue",
    "memtracks.quoting": "memtracks.tracks.quoting",
    "memtracks.reader": "memtracks.retrieval.reader",
    "memtracks.retrieval.quoting": "memtracks.tracks.quoting",
    "memtracks.snapshots": "memtracks.retrieval.snapshots",
    "memtracks.tiers": "memtracks.retrieval.tiers",
    "memtracks.transfer": "memtracks.upkeep.transfer",
    "memtracks.upkeep_cli": "memtracks.interfaces.upkeep_cli",
    "memtracks.userdata": "memtracks.data.userdata",
    "memtracks.validation": "memtracks.write.validation",
    "memtracks.views": "memtracks.interfaces.views",
    "memtracks.writer": "memtracks.write.writer",
}


def new_home(name: str) -> str | None:
    """Where the module once imported as ``name`` lives now (a moved module or one inside a
    moved package), or None for a name that did not move."""
    for old, new in MOVED.items():
        if name == old or name.startswith(old + "."):
            return new + name[len(old) :]
    return None


class _Alias(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(
            f"{spec.name} moved to {self.target}; import it from there",
            DeprecationWarning,
            stacklevel=2,
        )
        module = importlib.import_module(self.target)
        self.spec = module.__spec__
        if hasattr(module, "__path__"):
            return _stand_in(spec.name, module)
        return module

    def exec_module(self, module: ModuleType) -> None:
        if module.__name__ == self.target:
            module.__spec__ = self.spec  # the import system set the old name's spec; keep the real one


def _stand_in(name: str, package: ModuleType) -> ModuleType:
    """A module called ``name`` that reads its attributes from ``package``."""
    stand_in = ModuleType(name, package.__doc__)
    stand_in.__path__ = list(package.__path__)
    stand_in.__dict__["__getattr__"] = lambda attribute: getattr(package, attribute)
    return stand_in


class MovedModules(importlib.abc.MetaPathFinder):
    """Finds an old module path and hands out its module. It stands first on ``sys.meta_path``:
    a module inside a moved package would otherwise be found again under its old name by the
    path finder and loaded a second time."""

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        home = new_home(fullname)
        if home is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Alias(home))


def install() -> None:
    """Put the finder on ``sys.meta_path`` once."""
    if not any(isinstance(f, MovedModules) for f in sys.meta_path):
        sys.meta_path.insert(0, MovedModules())
