"""Optional parts fail loudly with instructions instead of falling back silently."""

from __future__ import annotations

import builtins

import pytest

from memtracks import Memory, MissingDependencyError
from memtracks.errors import UnknownNameError
from memtracks.pipeline.nlp import NLP


def test_hanlp_without_package_says_how_to_install(monkeypatch):
    real_import = builtins.__import__

    def no_hanlp(name, *args, **kwargs):
        if name == "hanlp" or name.startswith("hanlp."):
            raise ImportError("No module named 'hanlp'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_hanlp)
    with pytest.raises(MissingDependencyError, match=r"memtracks\[hanlp\]"):
        NLP(chinese_ner="hanlp")


def test_hanlp_without_local_model_says_so(monkeypatch, tmp_path):
    import sys
    import types

    monkeypatch.setitem(sys.modules, "hanlp", types.ModuleType("hanlp"))  # installed, but no model
    with pytest.raises(MissingDependencyError, match="local model|never downloads"):
        NLP(chinese_ner="hanlp", hanlp_model=tmp_path / "missing-model")


def test_unknown_chinese_ner_lists_options():
    with pytest.raises(UnknownNameError, match="jieba, hanlp"):
        NLP(chinese_ner="ltp")


def test_memory_passes_hanlp_choice_through(monkeypatch):
    import sys
    import types

    monkeypatch.setitem(sys.modules, "hanlp", types.ModuleType("hanlp"))
    with pytest.raises(MissingDependencyError):
        Memory(chinese_ner="hanlp")
