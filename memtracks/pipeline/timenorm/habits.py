"""Habits: a time that comes round again is not one time, and gets no mention.

"every Wednesday evening", 每周三晚上, "on Mondays at 6pm", 逢周五, "I usually go to bed at 11pm",
平时晚上十点睡: no single day is meant, so none is dated. A habit word (the ``habits`` section of
a time lexicon) governs *repeatable* times, the pieces marked ``cyclic``: a bare weekday, part
of the day, clock time, weekend, season, month, date or holiday without its year; never
"tomorrow", "next Friday", 下周三 or a date with its year. Where it holds:

* a ``lead`` word governs the repeatable time right after it ("every Friday", 每逢周五);
* a ``trail`` word the one right before it (周三晚上都有课), unless that one ends a list of
  times, which the word then sums up (6月18日和19日都有空: "both");
* an ``own`` word is itself a repeating time or a habit ("daily", "Mondays", "mornings",
  "twice a week", 每天, 天天, 平时, "usually"), unless it overlaps a time that is not
  repeatable ("two nights ago", 下周一到周五);

and once it holds it governs every repeatable time of its clause ("Every morning I have
coffee at 7"), except a day or longer behind a bound word, which dates the series ("every day
until Friday", "since March"); a habit word set off on its own ("Usually, I ...") governs the
clause it introduces. A governed time passes the habit on to the repeatable times listed next
to it (``habit_links``: "every Tuesday and Thursday evening", 逢周二、周四), and a repeatable
time ending a range begun by one that is not is part of that stretch ("from next Monday to
Friday", 从上周四到十月一日). A ``weak`` word counts only when its clause has no tense cue:
周末我都在家 is a habit, 周末我们都去爬山了 one weekend.

Both grammars' pieces are read together (a Chinese habit word governs "8:00" that the English
rules read too), on the text as written: neither grammar moves a character.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from memtracks.data.time_words import Lexicon
from memtracks.pipeline.timenorm.engine import Context, Piece
from memtracks.pipeline.timenorm.spans import Connectors
from memtracks.pipeline.timenorm.tense import clause_of, clause_tense, literal, sentence_of

_PLACES = ("own", "trail", "lead")  # tried in this order: "every day" is own before "every" leads


@dataclass(frozen=True)
class Habits:
    """The compiled habit words of one language."""

    pattern: re.Pattern[str] | None  # groups own / trail / lead; "weak_" before a weak word's,
    # "_s" after one that reaches its sentence
    links: re.Pattern[str]  # a gap between two times listed under one habit
    lists: re.Pattern[str]  # a gap between two times listed ("and", 和, 、): see ``trail``
    ranges: re.Pattern[str]  # the gap of a range ("to", 到): "from next Monday to Friday"
    bound_before: re.Pattern[str]  # "until", 直到 ... right before a time
    bound_after: re.Pattern[str]  # 以前, 开始 ... right after one


@dataclass(frozen=True)
class Run:
    """One grammar's reading of the text: its habit words, context and joined pieces."""

    habits: Habits
    ctx: Context
    pieces: Sequence[Piece]


@dataclass(frozen=True)
class _Mark:
    span: tuple[int, int]
    place: str
    run: int
    sentence: bool


Key = tuple[int, int]  # (run, index of the piece in that run)


def compile_habits(lex: Lexicon, word_bounded: bool, conn: Connectors) -> Habits:
    """Build the habit pattern from the ``habits`` and ``habit_links`` sections."""
    groups: dict[str, list[str]] = {
        f"{weak}{place}{reach}": [] for place in _PLACES for weak in ("", "weak_") for reach in ("_s", "")
    }
    for word in lex["habits"]:
        name = ("weak_" if word.weak else "") + word.place + ("_s" if word.sentence else "")
        groups[name].append(word.text if word.regex else literal(word.text, word_bounded))
    body = "|".join(f"(?P<{name}>{'|'.join(alts)})" for name, alts in groups.items() if alts)
    links = sorted(lex.words("habit_links"), key=len, reverse=True)
    gap = "|".join(literal(w, word_bounded) for w in links)
    listed = "|".join(literal(w, word_bounded) for w in sorted(lex.words("list_words"), key=len, reverse=True))
    return Habits(
        re.compile(body, re.IGNORECASE) if body else None,
        re.compile(rf"(?:\s|{gap})*" if gap else r"\s*", re.IGNORECASE),
        re.compile(rf"\s*(?:{listed})\s*" if listed else r"(?!)", re.IGNORECASE),
        conn.range_infix,
        conn.bound_prefix,
        conn.bound_suffix,
    )


def without_habits(text: str, runs: Sequence[Run]) -> list[list[Piece]]:
    """Each run's pieces, less the repeatable times a habit word governs."""
    if not any(piece.cyclic for run in runs for piece in run.pieces):
        return [list(run.pieces) for run in runs]  # most turns: no habit word is looked for
    entries = _repeatable(
        [(i, k, piece) for i, run in enumerate(runs) for k, piece in enumerate(run.pieces)], text, runs
    )
    sentences = sorted({sentence_of(text, p.span) for _, _, p in entries if p.cyclic})
    governed: set[Key] = set()
    for mark in (m for i, run in enumerate(runs) for m in _marks(run, i, sentences)):
        governed |= _held(mark, entries, text, runs)
    if governed:
        _pass_on(governed, entries, text, runs)
    return [[p for k, p in enumerate(run.pieces) if (i, k) not in governed] for i, run in enumerate(runs)]


def _repeatable(entries: list[tuple[int, int, Piece]], text: str, runs: Sequence[Run]) -> list[tuple[int, int, Piece]]:
    """The pieces, a repeatable one that ends a range begun by a time that is not ("from next
    Monday to Friday", 从上周四到十月一日) marked not repeatable: the range is one stretch."""
    fixed = set()
    for i, k, piece in entries:
        for _, _, first in entries:
            if piece.cyclic and not first.cyclic and first.span[1] <= piece.span[0]:
                if runs[i].habits.ranges.fullmatch(text, first.span[1], piece.span[0]):
                    fixed.add((i, k))
    return [(i, k, replace(p, cyclic=False) if (i, k) in fixed else p) for i, k, p in entries]


def _marks(run: Run, index: int, sentences: list[tuple[int, int]]) -> Iterator[_Mark]:
    """The habit words of the sentences that hold a repeatable time (a weak one only where its
    clause has no tense cue)."""
    pattern = run.habits.pattern
    if pattern is None:
        return
    for lo, hi in sentences:
        for match in pattern.finditer(run.ctx.text, lo, hi):
            kind = match.lastgroup or ""
            if kind.startswith("weak_") and clause_tense(run.ctx.text, match.span(), run.ctx.cues) is not None:
                continue
            place = kind.removeprefix("weak_")
            yield _Mark(match.span(), place.removesuffix("_s"), index, place.endswith("_s"))


def _held(mark: _Mark, entries: list[tuple[int, int, Piece]], text: str, runs: Sequence[Run]) -> set[Key]:
    """The pieces ``mark`` governs: none if it does not hold."""
    start, end = mark.span
    touching = [(i, k, p) for i, k, p in entries if p.span[0] < end and start < p.span[1]]
    if any(not p.cyclic for _, _, p in touching):
        return set()
    held = {(i, k) for i, k, _ in touching}
    if mark.place == "lead":
        after = {(i, k) for i, k, p in entries if p.cyclic and p.span[0] >= end and not text[end : p.span[0]].strip()}
        if not after:
            return set()
        held |= after
    elif mark.place == "trail":
        before = [
            (i, k, p) for i, k, p in entries if p.cyclic and p.span[1] <= start and not text[p.span[1] : start].strip()
        ]
        if not before or any(_after_list(p, entries, text, runs[mark.run]) for _, _, p in before):
            return set()  # 6月18日和19日都有空: 都 is "both" over the times listed, no habit
        held |= {(i, k) for i, k, _ in before}
    lo, hi = _clause(text, mark, runs[mark.run])
    held |= {
        (i, k)
        for i, k, p in entries
        if p.cyclic and lo <= p.span[0] and p.span[1] <= hi and not _dates_series(p, runs[i])
    }
    return held


def _after_list(piece: Piece, entries: list[tuple[int, int, Piece]], text: str, run: Run) -> bool:
    return any(
        p.span[1] <= piece.span[0] and run.habits.lists.fullmatch(text, p.span[1], piece.span[0]) is not None
        for _, _, p in entries
    )


def _clause(text: str, mark: _Mark, run: Run) -> tuple[int, int]:
    """What a habit word governs: its clause, or its sentence for a ``sentence`` word; a habit
    word set off on its own governs the clause it introduces ("Usually, I ...", "Once a week,
    on Friday, I ...", 平时，我…) or, ending the sentence, the one before ("Gym at 7, every
    day.")."""
    first, last = sentence_of(text, mark.span)
    if mark.sentence:
        return first, last
    cues = run.ctx.cues
    lo, hi = clause_of(text, mark.span, cues)
    if not run.habits.links.fullmatch(text[lo : mark.span[0]] + text[mark.span[1] : hi]):
        return lo, hi
    after = cues.clause.match(text, hi)
    if after is not None and after.end() < last:
        return lo, clause_of(text, (after.end(), after.end()), cues)[1]
    before = [m for m in cues.clause.finditer(text, first, lo) if m.end() == lo]
    if before:
        return clause_of(text, (before[-1].start(), before[-1].start()), cues)[0], hi
    return lo, hi


def _dates_series(piece: Piece, run: Run) -> bool:
    """A day or longer behind a bound word ("until Friday", "since March", 周五以前) says when
    the habit starts or stops: a time of its own."""
    if piece.clock is not None or piece.part is not None:
        return False
    text, (start, end) = run.ctx.text, piece.span
    before = run.habits.bound_before.search(text, max(0, start - 20), start)
    return before is not None or run.habits.bound_after.match(text, end) is not None


def _pass_on(governed: set[Key], entries: list[tuple[int, int, Piece]], text: str, runs: Sequence[Run]) -> None:
    """Governed times pass the habit on to the repeatable times listed next to them."""
    changed = True
    while changed:
        changed = False
        for i, k, piece in entries:
            if (i, k) in governed or not piece.cyclic or _dates_series(piece, runs[i]):
                continue
            if any((j, m) in governed and _listed(piece, other, text, runs[i], runs[j]) for j, m, other in entries):
                governed.add((i, k))
                changed = True


def _listed(a: Piece, b: Piece, text: str, run_a: Run, run_b: Run) -> bool:
    first, second = sorted((a, b), key=lambda p: p.span)
    if second.span[0] < first.span[1]:
        return True  # the same time read by both grammars
    gap = text[first.span[1] : second.span[0]]
    return any(run.habits.links.fullmatch(gap) is not None for run in (run_a, run_b))
