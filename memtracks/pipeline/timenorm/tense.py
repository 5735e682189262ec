"""Past / future cues around a time mention, for bare weekdays, months, weekends and seasons.

The search looks at the clause around the mention first (delimited by commas and by the
lexicon's ``clause_breaks`` words: and, but, 但是 ...), then the whole sentence. Within that
window the nearest ordinary cue wins; weak cues (Chinese 了) count only when no ordinary cue is
present. Words listed as ``not_cues`` (需要, "excited") are blanked out
first, and the mention itself is replaced by ``MENTION`` characters: a regex cue may write
``{mention}`` for "the mention follows here" ("moved to {mention}": "the launch slipped to
October 15" points forward, "I moved to Atlanta in June" does not).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memtracks.data.time_words import Lexicon

_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)|[\n。！？；…]")
MENTION = "\ue000"  # stands for the mention's characters during the cue search (not a word character)
# not the colon of 9:30; an emoji ends a clause as chat writes it ("Said yes to the offer 🎉 my
# first day is November 18": the day is the start's, not the past of "said")
_CLAUSE_END = re.compile(r"[.!?;](?=\s|$)|[\n。！？；…,，、]|[:：](?!\d)|[\U0001F300-\U0001FAFF\u2600-\u27BF]")


@dataclass(frozen=True)
class Cues:
    """Compiled cue patterns of one language."""

    pattern: re.Pattern[str]  # groups: future, past, weak_future, weak_past
    blank: re.Pattern[str] | None
    clause: re.Pattern[str] = _CLAUSE_END


def literal(text: str, word_bounded: bool) -> str:
    """Regex for a literal phrase: spaces match any whitespace; word edges get ``\\b``."""
    body = re.escape(text).replace(r"\ ", r"\s+")
    if not word_bounded:
        return body
    head = r"\b" if text[0].isalnum() else ""
    tail = r"\b" if text[-1].isalnum() else ""
    return head + body + tail


def compile_cues(lex: Lexicon, word_bounded: bool) -> Cues:
    """Build the cue pattern from the ``tense_cues`` and ``not_cues`` sections."""
    groups: dict[str, list[str]] = {"future": [], "past": [], "weak_future": [], "weak_past": []}
    for cue in lex["tense_cues"]:
        name = ("weak_" if cue.weak else "") + cue.tense
        text = cue.text.replace("{mention}", f"(?={MENTION})") if cue.regex else literal(cue.text, word_bounded)
        groups[name].append(text)
    body = "|".join(f"(?P<{name}>{'|'.join(alts)})" for name, alts in groups.items() if alts)
    blank = _alternation(lex.words("not_cues"), word_bounded)
    breaks = _alternation(lex.words("clause_breaks"), word_bounded)
    return Cues(
        re.compile(body, re.IGNORECASE),
        re.compile(blank, re.IGNORECASE) if blank else None,
        re.compile(f"{_CLAUSE_END.pattern}|{breaks}", re.IGNORECASE) if breaks else _CLAUSE_END,
    )


def _alternation(words: list[str], word_bounded: bool) -> str:
    ordered = sorted(words, key=len, reverse=True)
    return "|".join(literal(w, word_bounded) for w in ordered)


def tense_near(text: str, span: tuple[int, int], cues: Cues) -> str | None:
    """ "past", "future" or None for the mention at ``span`` in ``text``: the cues of its
    clause, else those of the rest of its sentence. A past cue there counts only when the
    clause is the time phrase alone ("On Saturday, we visited my parents"): a clause with
    words of its own tells of another happening than a past verb beside it ("I signed up for
    the race, it's on April 21"; 我报名了半马，四月二十一号跑), while a plan or a request spans
    the sentence ("Let's catch up next week, how about on Wednesday?"). A Chinese mention that
    qualifies a noun (四月二十一号的票, 周五的会) has the tense of no verb."""
    if _ATTRIBUTIVE.match(text, span[1]):
        return None
    lo, hi = _window(text, span, cues.clause)
    found = _nearest(text, lo, hi, span, cues)
    if found:
        return found
    bare = _bare(text[lo : span[0]] + " " + text[span[1] : hi])
    lo, hi = _window(text, span, _SENTENCE_END)
    found = _nearest(text, lo, hi, span, cues)
    return found if bare or found == "future" else None


# 的 after a time, not 的时候 / 的话 (when, if): the time qualifies the noun that follows.
_ATTRIBUTIVE = re.compile(r"的(?!时候|时|话|那天|那一天|日子里)")
_WORD = re.compile(r"[A-Za-z0-9']+")
_HAN_WORD = re.compile(r"[\u3400-\u9fff]")
_HAN_PREPOSITIONS = frozenset("在于从自到至")
_PREPOSITIONS = frozenset("on in at by around about the of early late until till from since then so and".split())


def _bare(rest: str) -> bool:
    """Is what is left of a clause beside its time phrase no more than prepositions ("on",
    "by the"; 在, 从)?"""
    han = [c for c in _HAN_WORD.findall(rest) if c not in _HAN_PREPOSITIONS]
    return not han and all(w.lower() in _PREPOSITIONS for w in _WORD.findall(rest))


def clause_of(text: str, span: tuple[int, int], cues: Cues) -> tuple[int, int]:
    """The clause around ``span``: from the last clause break before it to the first after it."""
    return _window(text, span, cues.clause)


def sentence_of(text: str, span: tuple[int, int]) -> tuple[int, int]:
    """The sentence around ``span``."""
    return _window(text, span, _SENTENCE_END)


def clause_tense(text: str, span: tuple[int, int], cues: Cues) -> str | None:
    """ "past", "future" or None from the cues of the clause around ``span`` alone."""
    lo, hi = clause_of(text, span, cues)
    return _nearest(text, lo, hi, span, cues)


def _window(text: str, span: tuple[int, int], boundary: re.Pattern[str]) -> tuple[int, int]:
    lo = 0
    for match in boundary.finditer(text, 0, span[0]):
        lo = match.end()
    after = boundary.search(text, span[1])
    return lo, after.start() if after else len(text)


def _nearest(text: str, lo: int, hi: int, span: tuple[int, int], cues: Cues) -> str | None:
    start, end = span[0] - lo, span[1] - lo
    clause = text[lo : span[0]] + MENTION * (end - start) + text[span[1] : hi]
    if cues.blank is not None:
        clause = cues.blank.sub(lambda m: " " * len(m.group()), clause)
    best: dict[bool, tuple[int, str]] = {}
    for match in cues.pattern.finditer(clause):
        kind = match.lastgroup or ""
        weak = kind.startswith("weak_")
        distance = match.start() - end if match.start() >= end else start - match.end()
        if weak not in best or distance < best[weak][0]:
            best[weak] = (distance, kind.removeprefix("weak_"))
    chosen = best.get(False) or best.get(True)
    return chosen[1] if chosen else None
