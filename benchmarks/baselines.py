"""Baselines over raw turns, on the same units as memtracks: BM25 (bm25s), dense (the same
embedder memtracks uses) and their reciprocal-rank fusion.

A raw turn is indexed as memtracks indexes its event: the text, led by the speaker's name in
two-person chats ("Caroline: I went to ...").
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memtracks import Turn
from memtracks.config import ASSISTANT_SPEAKERS
from memtracks.embedders import Embedder

RRF_K = 60


def turn_document(turn: Turn) -> str:
    speaker = turn.speaker.lower()
    if speaker == "user" or speaker in ASSISTANT_SPEAKERS:
        return turn.text
    return f"{turn.speaker}: {turn.text}"


class BM25Baseline:
    """bm25s over raw turns, English stop words removed."""

    name = "bm25"

    def __init__(self, turns: Sequence[Turn]):
        import bm25s

        self._bm25s = bm25s
        self.ids = [t.turn_id for t in turns]
        self.index = bm25s.BM25()
        self.index.index(
            bm25s.tokenize([turn_document(t) for t in turns], stopwords="en", show_progress=False), show_progress=False
        )

    def search(self, question: str, k: int) -> list[str]:
        k = min(k, len(self.ids))
        tokens = self._bm25s.tokenize([question], stopwords="en", show_progress=False)
        if not k or not tokens.vocab:
            return []
        try:
            docs, scores = self.index.retrieve(tokens, k=k, show_progress=False)
        except (ValueError, KeyError, IndexError):  # every query word unknown to the corpus
            return []
        return [self.ids[int(d)] for d, s in zip(docs[0], scores[0], strict=True) if s > 0]  # type: ignore[misc]


class DenseBaseline:
    """Cosine similarity between the question and each raw turn, same embedder as memtracks."""

    name = "dense"

    def __init__(self, turns: Sequence[Turn], embedder: Embedder):
        self.embedder = embedder
        self.ids = [t.turn_id for t in turns]
        self.matrix = embedder.embed_batch([turn_document(t) for t in turns]) if turns else np.zeros((0, embedder.dim))

    def search(self, question: str, k: int) -> list[str]:
        if not self.ids:
            return []
        scores = self.matrix @ self.embedder.embed_batch([question])[0]
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        return [self.ids[i] for i in top[np.argsort(-scores[top], kind="stable")]]  # type: ignore[misc]


class RRFBaseline:
    """Reciprocal-rank fusion of BM25 and dense: sum of 1 / (60 + rank)."""

    name = "rrf"

    def __init__(self, bm25: BM25Baseline, dense: DenseBaseline, depth: int = 50):
        self.bm25, self.dense, self.depth = bm25, dense, depth

    def search(self, question: str, k: int) -> list[str]:
        scores: dict[str, float] = {}
        depth = max(self.depth, k)
        for ranking in (self.bm25.search(question, depth), self.dense.search(question, depth)):
            for rank, turn_id in enumerate(ranking):
                scores[turn_id] = scores.get(turn_id, 0.0) + 1.0 / (RRF_K + rank + 1)
        return sorted(scores, key=lambda t: -scores[t])[:k]


def build_baselines(turns: Sequence[Turn], embedder: Embedder) -> list:
    bm25 = BM25Baseline(turns)
    dense = DenseBaseline(turns, embedder)
    return [bm25, dense, RRFBaseline(bm25, dense)]
