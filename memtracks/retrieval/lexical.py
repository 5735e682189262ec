"""Lexical search that works for English and Chinese: BM25 over words and CJK n-grams.

English text is split into lower-cased words (stop words dropped, plural and -ing/-ed endings
folded); Chinese text into single characters and character bigrams, which need no
segmenter and match 上海 inside 上海浦东. Entity keys are added as ``ent:<key>`` terms on both
sides, so a Chinese query about 上海 finds an English memory about Shanghai.

The index grows as memories are written (read-your-writes) and scores with numpy.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_STOP_EN = frozenset(
    "a an the and or but if then so of to in on at by for with from about as into over after before "
    "is am are was were be been being do does did have has had having i me my mine we us our you your "
    "he him his she her it its they them their this that these those what which who whom whose when "
    "where why how there here just very really too also not no yes oh ok okay hey hi hello well "
    "can could would should will shall may might must 's 're 've 'm 'll 'd".split()
)
_STOP_ZH = frozenset("的了是在我你他她它们吗呢吧啊呀哦也都就还和与")


def _stem(word: str) -> str:
    """A light English stemmer: enough to meet "hiking"/"hike", "cats"/"cat", "moved"/"move"."""
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix, replacement in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + replacement
            if suffix in ("ing", "ed") and word[-1] == word[-2] and word[-1] not in "ls":
                word = word[:-1]  # "stopped" -> "stop"
            break
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def tokenize(text: str, keys: Iterable[str] = ()) -> list[str]:
    """Terms of ``text`` for BM25, plus ``ent:`` terms for entity keys."""
    lowered = text.lower()
    terms = [_stem(w) for w in _WORD.findall(lowered) if w not in _STOP_EN]
    for run in _HAN_RUN.findall(lowered):
        chars = [c for c in run]
        terms.extend(c for c in chars if c not in _STOP_ZH)
        terms.extend(a + b for a, b in zip(chars, chars[1:], strict=False))
    terms.extend(f"ent:{k}" for k in keys)
    return terms


class LexicalIndex:
    """An append-only BM25 index over one user's memories on one track.

    Args:
        k1, b: the usual BM25 parameters.
    """

    def __init__(self, k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self.ids: list[int] = []
        self.lengths: list[int] = []
        self._postings: dict[str, list[tuple[int, int]]] = defaultdict(list)  # added since loading
        self._arrays: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._lengths_np: np.ndarray | None = None
        self.known: set[int] = set()
        self.postings = 0  # total (term, item) pairs, for the memory budget
        # postings loaded from a snapshot, term by term in CSR form (see save / load)
        self._slots: dict[str, int] = {}
        self._offsets = np.zeros(1, dtype=np.int64)
        self._rows = np.zeros(0, dtype=np.int64)
        self._tfs = np.zeros(0, dtype=np.float32)

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, item_id: int) -> bool:
        return item_id in self.known

    def add(self, item_id: int, terms: Sequence[str]) -> None:
        row = len(self.ids)
        self.ids.append(item_id)
        self.known.add(item_id)
        self.lengths.append(len(terms))
        counts: dict[str, int] = defaultdict(int)
        for term in terms:
            counts[term] += 1
        for term, tf in counts.items():
            self._postings[term].append((row, tf))
            self._arrays.pop(term, None)
        self.postings += len(counts)
        self._lengths_np = None

    def _array(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        if term not in self._arrays:
            posting = self._postings.get(term, [])
            rows = np.fromiter((r for r, _ in posting), dtype=np.int64, count=len(posting))
            tfs = np.fromiter((t for _, t in posting), dtype=np.float32, count=len(posting))
            slot = self._slots.get(term)
            if slot is not None:
                start, end = self._offsets[slot], self._offsets[slot + 1]
                rows = np.concatenate([self._rows[start:end], rows])
                tfs = np.concatenate([self._tfs[start:end], tfs])
            self._arrays[term] = (rows, tfs)
        return self._arrays[term]

    # ------------------------------------------------------------------ snapshots

    def save(self, path: Path) -> None:
        """Write the index as arrays (no pickle): ids, lengths, and postings per term."""
        terms = sorted(set(self._slots) | set(self._postings))
        parts = [self._array(t) for t in terms]
        offsets = np.zeros(len(terms) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([len(r) for r, _ in parts])
        rows = np.concatenate([r for r, _ in parts]) if parts else np.zeros(0, dtype=np.int64)
        tfs = np.concatenate([t for _, t in parts]) if parts else np.zeros(0, dtype=np.float32)
        vocabulary = np.frombuffer("\0".join(terms).encode("utf-8"), dtype=np.uint8)
        with open(path, "wb") as fh:
            np.savez(
                fh,
                ids=np.asarray(self.ids, dtype=np.int64),
                lengths=np.asarray(self.lengths, dtype=np.int64),
                vocabulary=vocabulary,
                offsets=offsets,
                rows=rows,
                tfs=tfs,
                params=np.asarray([self.k1, self.b], dtype=np.float64),
            )

    @classmethod
    def load(cls, path: Path) -> LexicalIndex:
        with np.load(path) as data:
            k1, b = data["params"].tolist()
            index = cls(k1, b)
            index.ids = data["ids"].tolist()
            index.lengths = data["lengths"].tolist()
            words = bytes(data["vocabulary"]).decode("utf-8")
            terms = words.split("\0") if words else []
            index._slots = dict(zip(terms, range(len(terms)), strict=True))
            index._offsets, index._rows, index._tfs = data["offsets"], data["rows"], data["tfs"]
        index.known = set(index.ids)
        index.postings = len(index._rows)
        return index

    def search(self, terms: Sequence[str], k: int, allowed: set[int] | None = None) -> list[tuple[int, float]]:
        """The ``k`` best (item id, BM25 score) pairs for the query ``terms``."""
        if not self.ids or not terms or k <= 0:
            return []
        if self._lengths_np is None:
            self._lengths_np = np.asarray(self.lengths, dtype=np.float32)
        lengths = self._lengths_np
        n, avg = len(self.ids), float(lengths.mean()) or 1.0
        scores = np.zeros(n, dtype=np.float32)
        for term in dict.fromkeys(terms):
            rows, tfs = self._array(term)
            if not len(rows):
                continue
            idf = math.log(1 + (n - len(rows) + 0.5) / (len(rows) + 0.5))
            norm = tfs * (self.k1 + 1) / (tfs + self.k1 * (1 - self.b + self.b * lengths[rows] / avg))
            scores[rows] += idf * norm
        hits = np.flatnonzero(scores > 0)
        if allowed is not None:
            hits = np.array([r for r in hits if self.ids[r] in allowed], dtype=np.int64)
        if not len(hits):
            return []
        if len(hits) > k:
            hits = hits[np.argpartition(-scores[hits], k - 1)[:k]]
        top = hits[np.argsort(-scores[hits], kind="stable")]
        return [(self.ids[r], float(scores[r])) for r in top]
