"""Everything the writer and the reader load once: language tools, lexicons, rules."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .catalogue import Catalogue, default_catalogue
from .lexicon import Lexicons, default_lexicons
from .nlp import NLP
from .pipeline.inference import RuleSpec, default_rules
from .pipeline.patterns import Compiled, default_happening_patterns, default_slot_patterns


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

    @classmethod
    def load(cls, chinese_ner: str = "jieba", hanlp_model: str | Path | None = None) -> Toolkit:
        lexicons = default_lexicons()
        return cls(nlp=NLP(lexicons, chinese_ner=chinese_ner, hanlp_model=hanlp_model), lexicons=lexicons)

    def key_of(self, value: str) -> str:
        """Canonical key of a value: the lexicon's entity key, else the normalised text."""
        from .pipeline.matching import value_key

        return self.lexicons.entities.key(value) or value_key(value)
