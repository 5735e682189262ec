"""The words a speaker uses for themselves, in one list that the writer (whose fact a clause
gives) and the reader (whom a question asks about) share.

Each word has its number and form: "I" and 我 are the speaker alone; "we" and 我们 the speaker
with others, which the writer still files under the speaker ("we moved to Denver").
"""

from __future__ import annotations

import re

# word -> (plural, form); form: subject, object, possessive, independent, reflexive, contraction
SELF_WORDS_EN: dict[str, tuple[bool, str]] = {
    "i": (False, "subject"),
    "me": (False, "object"),
    "my": (False, "possessive"),
    "mine": (False, "independent"),
    "myself": (False, "reflexive"),
    "i'm": (False, "contraction"),
    "i've": (False, "contraction"),
    "we": (True, "subject"),
    "us": (True, "object"),
    "our": (True, "possessive"),
    "ours": (True, "independent"),
    "ourselves": (True, "reflexive"),
}
SELF_WORDS_ZH: dict[str, tuple[bool, str]] = {
    "我": (False, "subject"),
    "我的": (False, "possessive"),
    "我们": (True, "subject"),
    "我们的": (True, "possessive"),
}

# a captured subject phrase that is the speaker ("I", "my", "we", "a passion of mine"...)
SUBJECT_WORDS_EN = frozenset(
    w for w, (_, form) in SELF_WORDS_EN.items() if form in ("subject", "object", "possessive", "independent")
)
# the head word of a parsed clause's subject that is the speaker (reflexives too)
CLAUSE_WORDS_EN = SUBJECT_WORDS_EN | {w for w, (_, form) in SELF_WORDS_EN.items() if form == "reflexive"}
# Chinese subject phrases, longest first (我们的, 我们, 我的, 我)
SUBJECT_WORDS_ZH = tuple(reversed(SELF_WORDS_ZH))
# a question the speaker asks about themselves alone: "Where do I live?", 我住哪？ (not 我们)
ASKS_OF_SELF_EN = re.compile(
    r"\b(?:" + "|".join(re.escape(w) for w, (plural, _) in SELF_WORDS_EN.items() if not plural) + r")\b", re.IGNORECASE
)
ASKS_OF_SELF_ZH = re.compile(r"我(?!们)")
