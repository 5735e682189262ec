"""Everything the writer and the reader load once: language tools, lexicons, rules.

Every data file of ``rules/`` and ``lexicons/`` has one loader and schema in
:mod:`memtracks.data`; the toolkit holds what they loaded, and the stages read it here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from memtracks.data import userdata
from memtracks.data.catalogue import Catalogue, default_catalogue
from memtracks.data.conjecture import Conjecture, default_conjecture
from memtracks.data.history import History, default_history
from memtracks.data.lexicons import Lexicons, default_lexicons
from memtracks.data.patterns import (
    Compiled,
    default_change_words,
    default_happening_patterns,
    default_slot_patterns,
    present_pieces,
)
from memtracks.data.polarity import Polarity, default_polarity
from memtracks.data.ranker import Ranker, default_ranker
from memtracks.data.rules import RuleSpec, default_rules
from memtracks.data.statements import (
    Endings,
    Markers,
    default_bare_corrections,
    default_endings,
    default_markers,
    default_passing,
    default_rumours,
)
from memtracks.data.stopwords import Stopwords, default_stopwords
from memtracks.data.tiers import TierRules, default_tier_rules
from memtracks.data.time_words import TimeWords, default_time_words
from memtracks.pipeline.nlp import NLP
from memtracks.pipeline.text import value_key
from memtracks.pipeline.values import check_value
from memtracks.write.gate import Gate, default_gate


class _OnFirstUse:
    """A field whose default is made when it is first read, not when the toolkit is built: the
    writer's patterns take seconds to compile, and a process that only answers questions never
    reads them. A value passed in is kept as given."""

    def __init__(self, factory: Callable[[], Any]):
        self.factory = factory

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self  # the dataclass's default: this marker, read by __set__
        if self.name not in obj.__dict__:
            obj.__dict__[self.name] = self.factory()
        return obj.__dict__[self.name]

    def __set__(self, obj: Any, value: Any) -> None:
        if value is not self:
            obj.__dict__[self.name] = value


@dataclass
class Toolkit:
    """The loaded data files and language tools, shared by every stage.

    Build it with :meth:`load`; pass custom data through its fields.
    """

    nlp: NLP
    lexicons: Lexicons = field(default_factory=default_lexicons)
    catalogue: Catalogue = field(default_factory=default_catalogue)
    slot_patterns: tuple[Compiled, ...] = _OnFirstUse(default_slot_patterns)  # type: ignore[assignment]
    happening_patterns: tuple[Compiled, ...] = _OnFirstUse(default_happening_patterns)  # type: ignore[assignment]
    rules: tuple[RuleSpec, ...] = field(default_factory=default_rules)
    gate: Gate = field(default_factory=default_gate)
    tiers: TierRules = field(default_factory=default_tier_rules)
    ranker: Ranker = field(default_factory=default_ranker)
    markers: Markers = field(default_factory=default_markers)
    bare_corrections: dict[str, tuple[re.Pattern[str], ...]] = field(default_factory=default_bare_corrections)
    endings: Endings = field(default_factory=default_endings)  # words that say a held value is over
    passing: Endings = field(default_factory=default_passing)  # words of a value had for a while (a test drive)
    rumours: Endings = field(default_factory=default_rumours)  # someone else's word of the speaker, denied
    history: History = field(default_factory=default_history)
    conjecture: Conjecture = field(default_factory=default_conjecture)
    polarity: Polarity = field(default_factory=default_polarity)
    change_words: dict[str, tuple[str, ...]] = field(default_factory=default_change_words)
    time_words: TimeWords = field(default_factory=default_time_words)  # the grammars of timenorm
    stopwords: Stopwords = field(default_factory=default_stopwords)  # what lexical search leaves out

    @classmethod
    def load(
        cls,
        chinese_ner: str = "jieba",
        hanlp_model: str | Path | None = None,
        *,
        rules_dir: str | Path | None = None,
        lexicons_dir: str | Path | None = None,
        nlp: NLP | None = None,
    ) -> Toolkit:
        """The bundled data (with your own from ``rules_dir`` / ``lexicons_dir``, see
        :mod:`memtracks.data.userdata`); ``nlp``: language tools already loaded, to reuse."""
        if rules_dir is None and lexicons_dir is None:
            lexicons = default_lexicons()
            return cls(nlp=nlp or NLP(lexicons, chinese_ner=chinese_ner, hanlp_model=hanlp_model), lexicons=lexicons)

        data = userdata.load(rules_dir, lexicons_dir)
        if nlp is None or data["lexicons"] is not nlp.lexicons:
            fresh = NLP(
                data["lexicons"],
                chinese_ner=nlp.chinese_ner if nlp else chinese_ner,
                hanlp_model=nlp.hanlp_model if nlp else hanlp_model,
            )
            if nlp is not None and "english" in nlp.__dict__:
                fresh.__dict__["english"] = nlp.__dict__["english"]  # the spaCy model does not change
            nlp = fresh
        return cls(nlp=nlp, **data)

    @cached_property
    def _english_patterns(self) -> tuple:
        return tuple(p for p in (*self.slot_patterns, *self.happening_patterns) if p.spec.lang == "en")

    def may_state(self, sentence: str) -> bool:
        """Could this English sentence give a slot value or a happening? Only those are parsed
        (a pattern whose literal pieces the sentence lacks is not run)."""
        present = present_pieces(self._english_patterns, sentence.casefold())
        return any(p.may_match_given(present) and p.regex.search(sentence) for p in self._english_patterns)

    def well_formed(self, value) -> bool:
        """Is a concluded slot value (from a rule, not a pattern) a value of its slot's kind?"""

        spec = self.catalogue.by_name.get(value.slot)
        if spec is None or value.negated:
            return True
        text = value.value
        found = self.lexicons.to_simplified(text) if value.lang == "zh" else text  # as the lexicon knows it
        tokens = self.nlp.segment(found) if value.lang == "zh" else ()
        entities = self.lexicons.entities.find(found)
        span = (0, len(text))
        kind, lang = spec.value_type, value.lang
        return check_value(text, kind, lang, span, text, entities, (), tokens, lexicons=self.lexicons) is None

    def key_of(self, value: str) -> str:
        """Canonical key of a value: the lexicon's entity key, else the normalised text."""

        return self.lexicons.entities.key(value) or value_key(value)
