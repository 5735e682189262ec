"""The learned ranker's data: the features a ranker file may weigh and ``rules/ranker.yaml``
read into a :class:`Ranker` (how its scores are used: :mod:`memtracks.retrieval.ranker`)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import ValidationError

from memtracks.data.files import Strict, bundled, read_yaml, validate_entries
from memtracks.errors import DataFileError

# Every feature a ranker file may weigh, in the order of the model's vector.
FEATURES: tuple[str, ...] = (
    "relevance",  # the hand score (after the substance prior)
    "relevance_gap",  # relevance minus the question's best candidate's
    "hand_rank",  # log(1 + rank) in the hand order
    "semantic",  # cosine with the question
    "semantic_gap",  # cosine minus the best candidate's cosine
    "semantic_rank",  # log(1 + rank) by cosine
    "lexical",  # BM25, divided by the best candidate's (0 when found another way)
    "coverage",  # share of the question's terms the turn holds (a category's name: or a member)
    "time_closeness",  # 1 inside the question's time window, falling outside it; a reply
    # to a question turn is as close as the question turn (it answers about that time)
    "kind",  # of a happening kind an aggregate question names
    "when",  # dated, and the question asks when
    "entity",  # mentions an entity of the question
    "speaker",  # said by the person the question is about
    "chain",  # found along the event chain from a better hit
    "answer",  # the reply to a question turn that matched
    "substance",  # the substance prior (retrieval/substance.py)
    "content_words",  # log(1 + content words of its statements)
    "length",  # log(1 + characters)
    "question",  # the turn asks something
    "assistant",  # said by the assistant
    "dated",  # the turn dates what it talks about
    "session_best",  # the best relevance among the candidates of its session
    "session_best_gap",  # that minus the question's best
    "session_support",  # the best relevance among the *other* candidates of its session
    "session_support_gap",  # that minus the question's best
    "session_count",  # log(1 + candidates of its session)
    "is_session_best",  # it is the best candidate of its session
    "aggregate",  # the question counts, lists or compares over time ("how many", 哪些, "which ... first")
    "asks_when",  # the question asks when
    "has_window",  # the question names a time
    "aggregate_x_session_count",
    "aggregate_x_relevance",
    "asks_when_x_dated",
    "window_x_time_closeness",
    "question_x_coverage",
    "coverage_x_semantic",
)


class Weight(Strict):
    feature: str
    weight: float
    note: str = ""


@dataclass(frozen=True)
class Ranker:
    """A linear scorer over :data:`FEATURES`: ``bias + weights . features``."""

    bias: float
    weights: np.ndarray  # one per feature, in FEATURES order
    path: str = ""

    @classmethod
    def of(cls, bias: float, weights: Mapping[str, float], path: str = "") -> Ranker:
        return cls(bias, np.array([float(weights.get(f, 0.0)) for f in FEATURES]), path)

    def named(self) -> dict[str, float]:
        return dict(zip(FEATURES, self.weights.tolist(), strict=True))

    def score(self, matrix: np.ndarray) -> np.ndarray:
        return matrix @ self.weights + self.bias if len(matrix) else np.zeros(0)


def _check_feature(entry: Weight) -> Iterable[str]:
    if entry.feature not in FEATURES:
        yield f"field 'feature': unknown feature {entry.feature!r} (known: {', '.join(FEATURES)})"
    if not math.isfinite(entry.weight):
        yield "field 'weight': must be a finite number"


class _Head(Strict):
    model: Literal["logistic"]
    bias: float
    weights: list


def load_ranker(path: Path | None = None) -> Ranker:
    """The ranker of ``path`` (default: the bundled ``rules/ranker.yaml``), validated: a bad
    file fails naming the file, the entry and the field."""
    path = path or bundled("rules", "ranker.yaml")
    doc = read_yaml(path)
    if not isinstance(doc, dict):
        raise DataFileError(str(path), ["must be a mapping with 'model', 'bias' and 'weights'"])
    problems: list[str] = []
    head: _Head | None = None
    try:
        head = _Head(**doc)
    except ValidationError as exc:  # every field at once
        problems += [f"field '{'.'.join(str(p) for p in e['loc'])}': {e['msg']}" for e in exc.errors()]
    weights: list[Weight] = []
    if isinstance(doc.get("weights"), list):
        try:
            weights = validate_entries(
                path, doc["weights"], Weight, section="weights", id_field="feature", check=_check_feature
            )
        except DataFileError as exc:
            problems += exc.problems
    if head is not None and not math.isfinite(head.bias):
        problems.append("field 'bias': must be a finite number")
    if problems:
        raise DataFileError(str(path), problems)
    assert head is not None
    return Ranker.of(head.bias, {w.feature: w.weight for w in weights}, str(path))


@lru_cache(maxsize=1)
def default_ranker() -> Ranker:
    return load_ranker()
