"""Named search presets for ``Memory.retrieve(..., preset="name")``.

A preset is a small bundle of the settings a retrieval already has: how many cards
(``top_n``), and values of :class:`~memtracks.config.RetrievalConfig` (how each track is
searched) and :class:`~memtracks.config.FusionConfig` (how the candidates are merged) for
this one call, in place of the memory's own. Arguments given to ``retrieve()`` win over the
preset (``top_n=``, ``k=``, ``tracks=``). ``"default"`` changes nothing.

==============  ===========================================================================
``default``     today's behaviour exactly: the memory's own configuration.
``facts_first`` fact cards lead and fewer turns come: facts weigh 1.0 found by their slot and
                0.9 by meaning (0.9 and 0.7 by default), events 0.6 (0.8), and the temporal
                track returns 8 candidates (15; 12 for a conjecture question, 25).
``recent``      recency weighs more, for "what's new?" questions: the share of a score that
                never decays falls to 0.4 (0.8), and facts decay over 30 days (180).
``wide``        a bigger pool and more cards, for questions whose answer is spread out ("how
                many...", "which ... have I..."): 10 cards (5), 10 fact, 30 temporal (40 for a
                conjecture) and 4 inference candidates (5, 15/25, 2), each from 4 times its k
                of each index (3), and cards kept down to 5% of the best score (10%).
``precise``     fewer cards, each more certain: 3 cards (5), candidates below relevance 0.2
                dropped (0.12), and cards below half the best card's score (10%).
==============  ===========================================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any

from memtracks.config import FusionConfig, MemoryConfig, RetrievalConfig
from memtracks.errors import UnknownNameError

DEFAULT = "default"
DEFAULT_TOP_N = 5  # cards retrieve() returns when neither it nor its preset says


@dataclass(frozen=True)
class Preset:
    """A named bundle of retrieval settings.

    Attributes:
        name: how ``retrieve(preset=...)`` names it.
        description: what it is for and what it changes.
        top_n: cards returned (None: ``retrieve()``'s default, :data:`DEFAULT_TOP_N`).
        retrieval: :class:`~memtracks.config.RetrievalConfig` fields and their values.
        fusion: :class:`~memtracks.config.FusionConfig` fields and their values.
    """

    name: str
    description: str
    top_n: int | None = None
    retrieval: Mapping[str, Any] = field(default_factory=dict)
    fusion: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for kind, values in ((RetrievalConfig, self.retrieval), (FusionConfig, self.fusion)):
            known = {f.name for f in fields(kind)}
            unknown = sorted(set(values) - known)
            if unknown:
                raise UnknownNameError(f"preset {self.name!r}: {kind.__name__} has no field {', '.join(unknown)}")
        object.__setattr__(self, "retrieval", MappingProxyType(dict(self.retrieval)))
        object.__setattr__(self, "fusion", MappingProxyType(dict(self.fusion)))

    def config(self, base: MemoryConfig) -> MemoryConfig:
        """``base`` with this preset's settings (``base`` itself when it has none)."""
        if not self.retrieval and not self.fusion:
            return base
        return replace(
            base,
            retrieval=replace(base.retrieval, **self.retrieval),
            fusion=replace(base.fusion, **self.fusion),
        )


PRESETS: Mapping[str, Preset] = MappingProxyType(
    {
        p.name: p
        for p in (
            Preset(DEFAULT, "today's behaviour exactly: the memory's own configuration"),
            Preset(
                "facts_first",
                "fact cards lead and fewer turns come: facts weigh more, events less, fewer event candidates",
                retrieval={"k_temporal": 8, "k_conjecture": 12},
                fusion={"fact_slot": 1.0, "fact_semantic": 0.9, "temporal": 0.6},
            ),
            Preset(
                "recent",
                'recency weighs more, for "what\'s new?" questions: less of a score is spared the decay, '
                "and facts decay faster",
                fusion={"decay_floor": 0.4, "fact_decay_days": 30.0},
            ),
            Preset(
                "wide",
                "a bigger candidate pool and more cards, for questions whose answer is spread out",
                top_n=10,
                retrieval={"k_fact": 10, "k_temporal": 30, "k_conjecture": 40, "k_inference": 4, "event_pool": 4},
                fusion={"min_score_ratio": 0.05},
            ),
            Preset(
                "precise",
                "fewer cards, each more certain: weak candidates and cards far below the best are dropped",
                top_n=3,
                retrieval={"min_relevance": 0.2},
                fusion={"min_score_ratio": 0.5},
            ),
        )
    }
)


def preset(name: str) -> Preset:
    """The preset called ``name``.

    Raises:
        UnknownNameError: no preset has that name (the message lists them).
    """
    found = PRESETS.get(name) if isinstance(name, str) else None
    if found is None:
        raise UnknownNameError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}")
    return found
