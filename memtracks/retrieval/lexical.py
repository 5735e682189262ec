"""Lexical search that works for English and Chinese: BM25 over words and CJK n-grams.

English text is split into lower-cased words (stop words dropped, plural and -ing/-ed endings
folded); Chinese text into single characters and character bigrams, which need no
segmenter and match 上海 inside 上海浦东. Chinese function words (什么, 怎么, 哪里...) are cut
out first and Traditional characters read as Simplified (們 as 们), so 什麼 and 什么 both say
nothing and 台北 meets 臺北. Stop words are data: ``lexicons/stopwords.yaml``, loaded by
:mod:`memtracks.data.stopwords` and held by the toolkit; a memory's indexes and questions use
its toolkit's, a caller with none the bundled ones. Entity keys are
added as ``ent:<key>`` terms on both sides, so a Chinese query about 上海 finds an English
memory about Shanghai.

The index grows as memories are written (read-your-writes) and scores with numpy.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from memtracks.data.lexicons import default_lexicons
from memtracks.data.stopwords import HAN_RUN, Stopwords, default_stopwords
from memtracks.pipeline.text import stem

_WORD = re.compile(r"[a-z0-9]+")
# "can't" and "won't" say "can not" and "will not"; every other "n't" is "not" after its verb
# ("didn't" -> "did not"); "'s" "'re" "'ve" "'m" "'ll" "'d" add nothing a search can use, so
# "sister's" meets "sister" and "what's" is the stop word "what".
_NEGATED = (re.compile(r"\b(ca|wo|sha)n't\b"), re.compile(r"n't\b"))
_CLITIC = re.compile(r"(?<=[a-z0-9])'(?:(?:s|re|ve|m|ll|d)\b|(?![a-z]))")
TOKENIZER = "bm25-terms.v3"  # saved BM25 indexes made with another tokenizer are rebuilt


@lru_cache(maxsize=1)
def _simplified() -> dict[int, str]:

    return str.maketrans(default_lexicons().traditional)


def english_words(lowered: str) -> list[str]:
    """The English words of lower-cased text, contractions and possessives split off
    ("didn't" -> "did", "not"; "caroline's" -> "caroline"; curly apostrophes as straight)."""
    text = lowered.replace("\u2019", "'").replace("\u2018", "'")
    if "'" in text:
        text = _NEGATED[0].sub(lambda m: {"ca": "can", "wo": "will", "sha": "shall"}[m[1]] + " not", text)
        text = _CLITIC.sub("", _NEGATED[1].sub(" not", text))
    return _WORD.findall(text)


def tokenizer_stamp(stop: Stopwords | None = None) -> str:
    """What saved BM25 indexes made with the stop words ``stop`` are stamped with: the
    tokenizer's version, and with stop words other than the bundled ones, their fingerprint."""
    if stop is None or stop is default_stopwords() or stop.fingerprint() == default_stopwords().fingerprint():
        return TOKENIZER
    return f"{TOKENIZER}+{stop.fingerprint()}"


def tokenize(text: str, keys: Iterable[str] = (), stop: Stopwords | None = None) -> list[str]:
    """Terms of ``text`` for BM25, plus ``ent:`` terms for entity keys. ``stop``: the stop
    words left out (a toolkit's ``stopwords``; None: the bundled ones)."""
    if stop is None:
        stop = default_stopwords()
    lowered = text.lower()
    terms = [stem(w) for w in english_words(lowered) if w not in stop.en]
    for han in HAN_RUN.findall(lowered):
        for run in stop.zh_words.split(han.translate(_simplified())):
            terms.extend(c for c in run if c not in stop.zh_chars)
            terms.extend(a + b for a, b in zip(run, run[1:], strict=False) if not {a, b} <= stop.zh_chars)
    terms.extend(f"ent:{k}" for k in keys)
    return terms


def bm25_idf(n: int, df: int) -> float:
    """BM25's idf of a term that ``df`` of ``n`` documents hold."""
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def bm25_tf(tf: Any, length: Any, avg: float, k1: float, b: float) -> Any:
    """BM25's saturated term frequency, length-normalised (numbers or numpy arrays alike)."""
    return tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avg))


def expansion_groups(extra: Sequence[tuple[str, ...]], own: Iterable[str]) -> list[tuple[str, ...]]:
    """The expansion groups a search adds (see :meth:`LexicalIndex.search`): each once, and
    none that is one of the question's own terms alone."""
    terms = set(own)
    return [g for g in dict.fromkeys(extra) if g and not (len(g) == 1 and g[0] in terms)]


class LexicalIndex:
    """An append-only BM25 index over one user's memories on one track.

    Args:
        k1, b: the usual BM25 parameters.
    """

    MERGE_AT = 500_000  # postings added before they are merged into the arrays

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
        self._pending = 0  # postings held as tuples (added since the last merge)

    def __len__(self) -> int:
        return len(self.known)

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
        self._pending += len(counts)
        self._lengths_np = None
        if self._pending >= self.MERGE_AT:
            self._merge()

    def _merge(self) -> None:
        """Move the postings added since the last merge into the arrays: held as Python
        tuples, a posting costs about ten times its 12 bytes there (a million memories would
        need gigabytes while their index is built)."""
        if not self._postings:
            return
        slots = dict(self._slots)
        for term in self._postings:
            slots.setdefault(term, len(slots))
        added = [(slots[term], posting) for term, posting in self._postings.items()]
        count = sum(len(p) for _, p in added)
        new_term = np.fromiter((slot for slot, p in added for _ in p), dtype=np.int64, count=count)
        new_rows = np.fromiter((r for _, p in added for r, _ in p), dtype=np.int64, count=count)
        new_tfs = np.fromiter((t for _, p in added for _, t in p), dtype=np.float32, count=count)
        old_term = np.repeat(np.arange(len(self._offsets) - 1, dtype=np.int64), np.diff(self._offsets))
        of_term = np.concatenate([old_term, new_term])
        order = np.argsort(of_term, kind="stable")  # a term's rows stay in the order they were added
        self._rows = np.concatenate([self._rows, new_rows])[order]
        self._tfs = np.concatenate([self._tfs, new_tfs])[order]
        self._offsets = np.zeros(len(slots) + 1, dtype=np.int64)
        self._offsets[1:] = np.cumsum(np.bincount(of_term, minlength=len(slots)))
        self._slots = slots
        self._postings.clear()
        self._arrays.clear()
        self._pending = 0

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

    def remove(self, item_ids: Iterable[int]) -> int:
        """Take erased memories out of the index, their words with them (so neither memory nor
        a saved snapshot keeps a term only they used); returns how many it held. Their rows
        stay as empty placeholders (id -1): no posting points to them, so they never score."""
        gone = {int(i) for i in item_ids} & self.known
        if not gone:
            return 0
        rows = np.fromiter((r for r, i in enumerate(self.ids) if i in gone), dtype=np.int64)
        terms = sorted(set(self._slots) | set(self._postings))
        parts = [self._array(t) for t in terms]
        every_row = np.concatenate([r for r, _ in parts]) if parts else np.zeros(0, dtype=np.int64)
        every_tf = np.concatenate([f for _, f in parts]) if parts else np.zeros(0, dtype=np.float32)
        term_of = np.repeat(np.arange(len(terms)), [len(r) for r, _ in parts])
        keep = ~np.isin(every_row, rows)
        counts = np.bincount(term_of[keep], minlength=len(terms))
        used = np.flatnonzero(counts)
        self._slots = {terms[t]: n for n, t in enumerate(used.tolist())}
        self._offsets = np.zeros(len(used) + 1, dtype=np.int64)
        self._offsets[1:] = np.cumsum(counts[used])
        self._rows, self._tfs = every_row[keep], every_tf[keep]
        self._postings.clear()
        self._arrays.clear()
        self._pending = 0
        for row in rows.tolist():
            self.ids[row], self.lengths[row] = -1, 0
        self.known -= gone
        self.postings = len(self._rows)
        self._lengths_np = None
        return len(gone)

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
        index.known = set(index.ids) - {-1}  # -1: an erased memory's placeholder
        index.postings = len(index._rows)
        return index

    def ceiling(self, terms: Sequence[str]) -> float:
        """The most a document could score for ``terms`` (each term's idf x (k1 + 1)): how a
        score compares with a full match, whatever the other candidates scored."""
        n = len(self.ids)
        total = 0.0
        for term in dict.fromkeys(terms):
            found = len(self._array(term)[0])
            if found:
                total += bm25_idf(n, found) * (self.k1 + 1)
        return total

    def _group(self, group: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """The items holding every term of ``group`` (a phrase's words, a Chinese word's
        bigrams), each with the smallest of those terms' frequencies."""
        rows, tfs = self._array(group[0])
        for term in group[1:]:
            if not len(rows):
                break
            other, other_tfs = self._array(term)
            rows, mine, theirs = np.intersect1d(rows, other, assume_unique=True, return_indices=True)
            tfs = np.minimum(tfs[mine], other_tfs[theirs])
        return rows, tfs

    def search(
        self,
        terms: Sequence[str],
        k: int,
        allowed: set[int] | None = None,
        extra: Sequence[tuple[str, ...]] = (),
        extra_weight: float = 0.0,
        extra_max_share: float = 1.0,
    ) -> list[tuple[int, float]]:
        """The ``k`` best (item id, BM25 score) pairs for the query ``terms``. ``extra``: more
        search words (a category's members), each a group of terms an item must all hold,
        scored as one term at ``extra_weight`` of a question term's weight; a group held by
        more than ``extra_max_share`` of the items (and by more than one) says too little and
        is left out."""
        if not self.known or not (terms or extra) or k <= 0:
            return []
        if self._lengths_np is None:
            self._lengths_np = np.asarray(self.lengths, dtype=np.float32)
        lengths = self._lengths_np
        n = len(self.known)  # erased placeholders count for nothing
        avg = float(lengths.sum()) / n or 1.0
        scores = np.zeros(len(self.ids), dtype=np.float32)
        own = dict.fromkeys(terms)
        weighted = [(self._array(t), 1.0) for t in own]
        if extra_weight > 0:
            for rows, tfs in (self._group(g) for g in expansion_groups(extra, own)):
                if len(rows) and len(rows) <= max(1.0, extra_max_share * n):
                    weighted.append(((rows, tfs), extra_weight))
        for (rows, tfs), weight in weighted:
            if not len(rows):
                continue
            scores[rows] += weight * bm25_idf(n, len(rows)) * bm25_tf(tfs, lengths[rows], avg, self.k1, self.b)
        hits = np.flatnonzero(scores > 0)
        if allowed is not None:
            hits = np.array([r for r in hits if self.ids[r] in allowed], dtype=np.int64)
        if not len(hits):
            return []
        if len(hits) > k:
            hits = hits[np.argpartition(-scores[hits], k - 1)[:k]]
        top = hits[np.argsort(-scores[hits], kind="stable")]
        return [(self.ids[r], float(scores[r])) for r in top]
