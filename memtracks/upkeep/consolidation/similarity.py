"""How two memories' texts relate, beyond how close their vectors are.

A high cosine says two memories are about the same thing; it does not say they agree
("meeting on Tuesday" and "meeting on Thursday" sit very close). So consolidation also
compares what each text says that the other does not, over the lexical index's terms
(stemmed English words, Chinese characters, entity keys):

- nothing either way: the **same** statement;
- only one of them says more: that one is the **more detailed** restatement;
- each says something the other does not (another day, another name, another value), or
  one is turned around by a negation the other lacks: **distinct** — never merged.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable

from memtracks.data.polarity import Polarity, default_polarity
from memtracks.retrieval.lexical import tokenize


class Relation(enum.StrEnum):
    SAME = "same"
    FIRST_MORE = "first_more"  # the first text says everything the second does, and more
    SECOND_MORE = "second_more"
    DISTINCT = "distinct"


_HAN = re.compile(r"^[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{2}$")


def terms(text: str, keys: Iterable[str] = ()) -> frozenset[str]:
    """Content terms: stemmed English words, single Chinese characters (bigrams would make
    an inserted word look like a change: 看电影 / 看科幻电影), entity keys."""
    return frozenset(t for t in tokenize(text, keys) if not _HAN.match(t))


def relation(
    first: str,
    second: str,
    *,
    first_keys: Iterable[str] = (),
    second_keys: Iterable[str] = (),
    polarity: Polarity | None = None,
) -> Relation:
    """How ``first`` relates to ``second`` (Traditional Chinese should already be Simplified)."""
    polarity = polarity or default_polarity()
    if polarity.marks(first) != polarity.marks(second):
        return Relation.DISTINCT
    a, b = terms(first, first_keys), terms(second, second_keys)
    only_a, only_b = a - b, b - a
    if only_a and only_b:
        return Relation.DISTINCT
    if only_a:
        return Relation.FIRST_MORE
    if only_b:
        return Relation.SECOND_MORE
    return Relation.SAME
