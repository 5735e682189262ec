"""Everything the writer and the reader load once: language tools, lexicons, rules."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from memtracks.data.catalogue import Catalogue, default_catalogue
from memtracks.data.lexicons import Lexicons, default_lexicons
from memtracks.data.ranker import Ranker, default_ranker
from memtracks.data.tiers import TierRules, default_tier_rules
from memtracks.pipeline.inference import RuleSpec, default_rules
from memtracks.pipeline.nlp import NLP
from memtracks.pipeline.patterns import Compiled, default_happening_patterns, default_slot_patterns
from memtracks.write.gate import Gate, default_gate


@dataclass
class Toolkit:
    """The loaded data files and language tools, shared by every stage.

    Build it with :meth:`load`; pass custom data through its fields.
    """

    nlp: NLP
    lexicons: Lexicons = field(default_factory=default_lexicons)
    catalogue: Catalogue = field(default_factory=default_catalogue)
    slot_patterns: tuple[Compiled, ...] = field(default_factory=default_slot_patterns)
    happening_patterns: tuple[Compiled, ...] = field(default_factory=default_happening_patterns)
    rules: tuple[RuleSpec, ...] = field(default_factory=default_rules)
    gate: Gate = field(default_factory=default_gate)
    tiers: TierRules = field(default_factory=default_tier_rules)
    ranker: Ranker = field(default_factory=default_ranker)

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
        from memtracks.data import userdata

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
    def change_words(self) -> dict[str, tuple[str, ...]]:
        """Happening kind -> the nouns a cancellation or postponement names it by."""
        from memtracks.pipeline.patterns import load_change_words

        return load_change_words()

    @cached_property
    def _english_patterns(self) -> tuple:
        return tuple(p.regex for p in (*self.slot_patterns, *self.happening_patterns) if p.spec.lang == "en")

    def may_state(self, sentence: str) -> bool:
        """Could this English sentence give a slot value or a happening? Only those are parsed."""
        return any(rx.search(sentence) for rx in self._english_patterns)

    def well_formed(self, value) -> bool:
        """Is a concluded slot value (from a rule, not a pattern) a value of its slot's kind?"""
        from memtracks.pipeline.values import check_value

        spec = self.catalogue.by_name.get(value.slot)
        if spec is None or value.negated:
            return True
        text = value.value
        tokens = self.nlp.segment(text) if value.lang == "zh" else ()
        entities = self.lexicons.entities.find(text)
        span = (0, len(text))
        kind, lang = spec.value_type, value.lang
        return check_value(text, kind, lang, span, text, entities, (), tokens, lexicons=self.lexicons) is None

    def key_of(self, value: str) -> str:
        """Canonical key of a value: the lexicon's entity key, else the normalised text."""
        from memtracks.pipeline.text import value_key

        return self.lexicons.entities.key(value) or value_key(value)
