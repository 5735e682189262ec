"""The learned ranker of the temporal track: a linear model over what retrieval already knows
of each candidate turn, read from ``rules/ranker.yaml``.

The hand-tuned score (cosine and BM25 mixed, plus time, kind, entity and speaker bonuses, the
chain and the substance prior; see ``retrieval/temporal.py``) finds most of a question's
evidence but ranks much of it too low: the question turn itself, a pleasantry that repeats the
question's words, a single turn of the session where the rest of the story is told. The
ranker scores every candidate of the pool with ``bias + sum(weight x feature)`` (a logistic
regression fitted on the LoCoMo tuning split by ``benchmarks/train_ranker.py``) from:

- the hand score's parts (``relevance``, ``semantic``, ``lexical``, ``time_closeness``,
  ``kind``, ``when``, ``entity``, ``speaker``, ``chain``, ``answer``, ``substance``);
- the same relative to the question's other candidates (the gap to the best, the rank);
- the turn itself: the share of the question's terms it holds (``coverage``; a term that
  names a category the search expands is held through any member: "Instagram" for "social
  media"), its content words, its length, whether it asks something or was said by the
  assistant, whether it is dated;
- its session: the best relevance there and how many candidates it holds (the evidence of a
  multi-hop question clusters in one or two sessions);
- the question's form (counts and lists, "when", a time window) and a few interactions.

Only the *order* is learned: the candidates keep the hand relevances, handed out in the
learned order (the best-ranked candidate takes the highest), so fusion weighs the temporal
track against facts and conclusions exactly as before. The pool holds only what the
retrieval's filters admit (the tiers, a session, a time span, metadata: ``SearchContext.admit``),
so the relevances handed out are the admitted candidates' own. ``RetrievalConfig.ranker`` chooses:
"learned" (the default: it lifts LoCoMo's held-out recall in every category and loses one
LongMemEval_S question; benchmarks/RESULTS.md) or "hand".
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from memtracks.config import ASSISTANT_SPEAKERS, is_assistant
from memtracks.data.ranker import FEATURES, Ranker
from memtracks.retrieval.lexical import tokenize
from memtracks.retrieval.substance import substance

if TYPE_CHECKING:
    from memtracks.data.stopwords import Stopwords
    from memtracks.retrieval.query import Query
    from memtracks.storage.sqlite import EventHead


_CACHE = 100_000


@lru_cache(maxsize=_CACHE)
def _terms_of(text: str, keys: tuple[str, ...], stop: Stopwords | None = None) -> frozenset[str]:
    return frozenset(tokenize(text, keys, stop))


def features(
    scored: Mapping[int, tuple[float, str, Mapping[str, float]]],
    heads: Mapping[int, EventHead],
    cosine: Mapping[int, float],
    query: Query,
    expanded: Sequence[tuple[tuple[str, ...], Sequence[tuple[str, ...]]]] = (),
    assistants: Collection[str] = ASSISTANT_SPEAKERS,
) -> tuple[list[int], np.ndarray]:
    """The candidates (ids) and their feature matrix (rows in that order, columns in
    :data:`FEATURES` order). ``scored``: id -> (relevance, how, explain) as the temporal
    retriever scored it; ``cosine``: every candidate's cosine with the question; ``expanded``:
    the question's terms that name a category, each with the category's member groups
    (``retrieval/hits.py``, ``covered``): a turn that names a member holds them."""
    ids = sorted(scored, key=lambda i: (-scored[i][0], i))
    if not ids:
        return ids, np.zeros((0, len(FEATURES)))
    terms = frozenset(query.terms)
    rel = np.array([scored[i][0] for i in ids])
    sem = np.array([max(0.0, cosine.get(i, scored[i][2].get("semantic", 0.0))) for i in ids])
    best, best_sem = float(rel.max()), float(sem.max())
    sem_rank = np.empty(len(ids))
    sem_rank[np.argsort(-sem, kind="stable")] = np.arange(len(ids))
    session_best: dict[str, float] = {}
    session_second: dict[str, float] = {}  # the second best (ids are in the order of relevance)
    session_count: dict[str, int] = {}
    first: dict[str, int] = {}  # the session's best candidate's place in ids
    for n, (i, r) in enumerate(zip(ids, rel.tolist(), strict=True)):
        s = heads[i].session_id
        if s not in session_best:
            session_best[s], first[s] = r, n
        elif s not in session_second:
            session_second[s] = r
        session_count[s] = session_count.get(s, 0) + 1
    aggregate, asks_when, window = float(query.aggregate), float(query.asks_when), float(query.window is not None)
    rows = []
    for n, i in enumerate(ids):
        _, how, explain = scored[i]
        head = heads[i]
        r, s = rel[n], sem[n]
        said = _terms_of(head.text, tuple(head.entity_keys), query.stopwords)
        coverage = len(held(terms, said, expanded)) / len(terms) if terms else 0.0
        closeness = explain.get("time_closeness", 0.0)
        if explain.get("answer", 0.0) > 0 and (origin := scored.get(int(explain.get("from_event", -1)))):
            closeness = max(closeness, origin[2].get("time_closeness", 0.0))
        sb = session_best[head.session_id]
        support = session_second.get(head.session_id, 0.0) if n == first[head.session_id] else sb
        count = math.log1p(session_count[head.session_id])
        question, dated = float(head.question), float(head.dated)
        rows.append(
            (
                r,
                r - best,
                math.log1p(n),
                s,
                s - best_sem,
                math.log1p(sem_rank[n]),
                explain.get("lexical", 0.0),
                coverage,
                closeness,
                float("kind" in explain),
                float("when" in explain),
                float("entity" in explain),
                float("speaker" in explain),
                float(how == "chain"),
                float(explain.get("answer", 0.0) > 0),
                explain.get("substance", 1.0),
                math.log1p(substance(head.text)),
                math.log1p(len(head.text)),
                question,
                float(is_assistant(head.speaker, assistants)),
                dated,
                sb,
                sb - best,
                support,
                support - best,
                count,
                float(n == first[head.session_id]),
                aggregate,
                asks_when,
                window,
                aggregate * count,
                aggregate * r,
                asks_when * dated,
                window * closeness,
                question * coverage,
                coverage * s,
            )
        )
    return ids, np.array(rows, dtype=float)


def held(
    terms: frozenset[str], said: frozenset[str], expanded: Sequence[tuple[tuple[str, ...], Sequence[tuple[str, ...]]]]
) -> frozenset[str]:
    """The question's ``terms`` a turn that says ``said`` holds: its own, and those naming a
    category of ``expanded`` when the turn names one of the category's members (every term of
    a member group: "ice hockey", 跆拳 + 拳道)."""
    own = terms & said
    extra = {t for names, groups in expanded for t in names if any(set(g) <= said for g in groups)}
    return own | (extra & terms) if extra else own


def learned_order(
    scored: dict[int, tuple[float, str, dict[str, float]]],
    heads: Mapping[int, EventHead],
    cosine: Mapping[int, float],
    query: Query,
    ranker: Ranker,
    expanded: Sequence[tuple[tuple[str, ...], Sequence[tuple[str, ...]]]] = (),
    assistants: Collection[str] = ASSISTANT_SPEAKERS,
) -> dict[int, tuple[float, str, dict[str, float]]]:
    """``scored`` reordered by the ranker: the hand relevances, highest first, handed to the
    candidates in the ranker's order (ties keep the hand order). ``expanded``: see
    :func:`features`."""
    ids, matrix = features(scored, heads, cosine, query, expanded, assistants)
    if len(ids) < 2:
        return scored
    learned = ranker.score(matrix)
    order = np.argsort(-learned, kind="stable")
    values = [scored[i][0] for i in ids]  # ids are in the hand order: highest relevance first
    out: dict[int, tuple[float, str, dict[str, float]]] = {}
    for value, n in zip(values, order.tolist(), strict=True):
        i = ids[n]
        _, how, explain = scored[i]
        out[i] = (value, how, {**explain, "hand": scored[i][0], "learned": float(learned[n]), "relevance": value})
    return out
