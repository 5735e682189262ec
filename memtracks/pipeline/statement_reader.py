"""The statement reader: what a clause does with what it names, learned from labelled clauses.

The rules find values and times; they recognise change only in the words they list. The
reader decides, for a clause, which of eight things it does —

    states        a fact about the speaker ("I work at a bakery", 我家有两个孩子)
    ends          ends or negates one ("Sold the Civic", "we split up", 我对花生不过敏了)
    corrects      corrects a value said wrong ("sorry, I meant Porto", 口误，是周二)
    replaces      one thing for another ("traded the Civic for a Tesla", 从阿里跳槽到腾讯)
    plans         a plan of the speaker's ("starting at Stripe on May 1", 下个月搬去深圳)
    cancels       cancels or moves a plan ("the conference got cancelled", 入职推迟到五月)
    not_asserted  a question, a wish, a condition, or about someone else ("should I move?")
    says_nothing  nothing storable ("haha that's great", 谢谢)

— and which slot it is about (``rules/slots.yaml``'s names, or none), from the clause's
multilingual sentence vector (the default embedder's), the statement
markers of ``lexicons/statements.yaml`` and its words (English words and word pairs, Chinese
characters and character pairs, Traditional read as Simplified, hashed into ``BUCKETS``). It is a multinomial logistic regression whose weights
ship in the package (``memtracks/models/statement_reader.npz``; one head for the kind, one for
the slot), made by
``python -m benchmarks.train_statements`` from ``benchmarks/data/statements/`` with a fixed
seed; its test-split figures are in ``benchmarks/RESULTS.md``. The weights belong to one
embedder: with another one the reader is off (:func:`reader_for` returns None) and the rules
alone decide.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from memtracks.data.statements import CATEGORIES

if TYPE_CHECKING:
    from memtracks.retrieval.embedders import Embedder
    from memtracks.toolkit import Toolkit

KINDS = ("states", "ends", "corrects", "replaces", "plans", "cancels", "not_asserted", "says_nothing")
WEIGHTS = Path(__file__).resolve().parent.parent / "models" / "statement_reader.npz"
_HAN = re.compile(r"[\u4e00-\u9fff]")
_WORDS = re.compile(r"[a-z]+(?:'[a-z]+)?|[\u4e00-\u9fff]")
BUCKETS = 16384


def word_features(text: str, toolkit: Toolkit) -> np.ndarray:
    """Hashed words and word pairs (a Chinese character is a word), present or not, scaled to
    unit length."""
    said = toolkit.lexicons.to_simplified(text.lower())
    words = _WORDS.findall(said)
    grams = words + [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)]
    out = np.zeros(BUCKETS, dtype=np.float32)
    for g in grams:
        out[zlib.crc32(g.encode("utf-8")) % BUCKETS] = 1.0
    norm = float(np.linalg.norm(out))
    return out / norm if norm else out


def marker_features(text: str, toolkit: Toolkit) -> np.ndarray:
    """The statement markers the clause holds (one per category) and whether it is Chinese."""
    zh = _HAN.search(text) is not None
    said = toolkit.lexicons.to_simplified(text) if zh else text
    found = toolkit.markers.found("zh" if zh else "en", said)
    return np.array([c in found for c in CATEGORIES] + [zh], dtype=np.float32)


def features(texts: Sequence[str], embedder: Embedder, toolkit: Toolkit) -> np.ndarray:
    """Each clause's sentence vector beside its marker and word features."""
    vectors = np.asarray(embedder.embed_batch(list(texts)), dtype=np.float32)
    if not texts:
        return vectors
    markers = np.stack([marker_features(t, toolkit) for t in texts])
    words = np.stack([word_features(t, toolkit) for t in texts])
    return np.hstack([vectors, markers, words])


NO_SLOT = "none"


class Reading(dict[str, float]):
    """One clause read: the probability of each kind (``reading["ends"]``) and, in ``slots``,
    of each slot it may be about (``NO_SLOT`` for none)."""

    def __init__(self, kinds: dict[str, float], slots: dict[str, float]) -> None:
        super().__init__(kinds)
        self.slots = slots

    def slot(self) -> tuple[str, float]:
        """The likeliest slot and its probability."""
        if not self.slots:
            return NO_SLOT, 1.0
        name = max(self.slots, key=self.slots.__getitem__)
        return name, self.slots[name]


def softmax(x: np.ndarray, weights: np.ndarray, bias: np.ndarray) -> np.ndarray:
    z = x @ weights + bias
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class StatementReader:
    """Weights (features x kinds) and biases of the kind head, those of the slot head
    (features x slots, ``slots`` naming its columns), and the embedder whose vectors they read."""

    weights: np.ndarray
    bias: np.ndarray
    embedder: str
    slot_weights: np.ndarray | None = None
    slot_bias: np.ndarray | None = None
    slots: tuple[str, ...] = ()

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        return softmax(x, self.weights, self.bias)

    def read(self, texts: Sequence[str], embedder: Embedder, toolkit: Toolkit) -> list[Reading]:
        """Per clause, the probability of each kind and of each slot."""
        if not texts:
            return []
        x = features(texts, embedder, toolkit)
        kinds = self.probabilities(x)
        if self.slot_weights is None or self.slot_bias is None:
            return [Reading(dict(zip(KINDS, map(float, row), strict=True)), {}) for row in kinds]
        slots = softmax(x, self.slot_weights, self.slot_bias)
        return [
            Reading(dict(zip(KINDS, map(float, k), strict=True)), dict(zip(self.slots, map(float, s), strict=True)))
            for k, s in zip(kinds, slots, strict=True)
        ]

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays: dict[str, np.ndarray] = {
            "weights": self.weights,
            "bias": self.bias,
            "embedder": np.array(self.embedder),
            "kinds": np.array(KINDS),
        }
        if self.slot_weights is not None and self.slot_bias is not None:
            arrays |= {"slot_weights": self.slot_weights, "slot_bias": self.slot_bias, "slots": np.array(self.slots)}
        np.savez_compressed(path, allow_pickle=False, **arrays)


def load_reader(path: Path = WEIGHTS) -> StatementReader:
    with np.load(path) as data:
        kinds = tuple(str(k) for k in data["kinds"])
        if kinds != KINDS:
            raise ValueError(f"{path}: kinds {kinds} are not {KINDS}")
        if "slot_weights" not in data:
            return StatementReader(data["weights"], data["bias"], str(data["embedder"]))
        slots = tuple(str(s) for s in data["slots"])
        if data["slot_weights"].shape != (data["weights"].shape[0], len(slots)):
            raise ValueError(f"{path}: slot weights {data['slot_weights'].shape} do not read {len(slots)} slots")
        return StatementReader(
            data["weights"], data["bias"], str(data["embedder"]), data["slot_weights"], data["slot_bias"], slots
        )


@lru_cache(maxsize=1)
def _shipped() -> StatementReader | None:
    return load_reader() if WEIGHTS.exists() else None


def reader_for(embedder: Embedder) -> StatementReader | None:
    """The shipped reader when its weights read ``embedder``'s vectors; else None."""
    reader = _shipped()
    if reader is None or getattr(embedder, "name", None) != reader.embedder:
        return None
    if getattr(embedder, "dim", None) != reader.weights.shape[0] - len(CATEGORIES) - 1 - BUCKETS:
        return None
    return reader
