"""LoCoMo and LongMemEval as memtracks turns and questions.

LoCoMo: iterate ``session_N`` keys (not the date keys); evidence ids are parsed with a regex
(leading zeros dropped: "D30:05" is D30:5) and ids that do not exist in the conversation are
dropped; category 5 has
``adversarial_answer`` instead of ``answer``; questions are asked at the last session's time.

LongMemEval: sessions are sorted by their timestamp; each turn id is ``<session id>#<n>``, so
a retrieved turn maps back to its session (a session id that repeats in one haystack gets
``~2``, ``~3``... before the ``#``); ``_abs`` questions are abstentions.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any

from memtracks import Turn
from memtracks.interfaces.io import locomo_turns, parse_locomo_date

_EVIDENCE = re.compile(r"D(\d+):(\d+)")

# Category numbers and their two naming conventions (LoCoMo's own; the Mem0 paper's).
LOCOMO_CATEGORIES = {
    1: ("multi-hop", "single-hop (Mem0 naming)"),
    2: ("temporal", "temporal (Mem0 naming)"),
    3: ("open-domain", "multi-hop (Mem0 naming)"),
    4: ("single-hop", "open-domain (Mem0 naming)"),
    5: ("adversarial", "adversarial (Mem0 naming)"),
}


@dataclass(frozen=True)
class Question:
    """One benchmark question with its gold answer and evidence."""

    id: str
    question: str
    answer: str
    category: str  # LoCoMo: "1".."5"; LongMemEval: question_type
    asked_at: datetime
    evidence_turns: frozenset[str]
    evidence_sessions: frozenset[str] = frozenset()
    abstention: bool = False


@dataclass(frozen=True)
class Unit:
    """One conversation (LoCoMo) or one question's haystack (LongMemEval): a fresh memory each."""

    id: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]

    def session_of(self, turn_id: str) -> str:
        """The session a turn id belongs to (LongMemEval "<session>#<n>", LoCoMo "D<session>:<n>")."""
        if "#" in turn_id:
            return turn_id.split("#", 1)[0].split("~", 1)[0]
        return turn_id.split(":", 1)[0]


# ------------------------------------------------------------------------ LoCoMo


def evidence_ids(text: str) -> list[str]:
    """Dialogue ids in an evidence string, written as the turns' own ids: "D30:05" is D30:5."""
    return [f"D{int(s)}:{int(n)}" for s, n in _EVIDENCE.findall(text)]


def _locomo_question(sample_id: str, j: int, qa: dict[str, Any], asked_at: datetime, known: set[str]) -> Question:
    evidence = frozenset(e for e in evidence_ids(" ".join(map(str, qa.get("evidence", [])))) if e in known)
    answer = qa.get("answer", qa.get("adversarial_answer", ""))
    return Question(
        id=f"{sample_id}_q{j}",
        question=qa["question"],
        answer=str(answer),
        category=str(qa["category"]),
        asked_at=asked_at,
        evidence_turns=evidence,
        evidence_sessions=frozenset(e.split(":")[0] for e in evidence),
    )


def load_locomo(path: str | Path, tz: tzinfo = timezone.utc, limit: int | None = None) -> list[Unit]:
    """LoCoMo conversations as units; questions are asked a minute after the last session."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    units = []
    for index, sample in enumerate(data[:limit] if limit else data):
        sample_id = str(sample.get("sample_id", f"locomo-{index}"))
        turns = tuple(locomo_turns(sample, tz, user_id=sample_id))
        conv = sample["conversation"]
        dates = [
            parse_locomo_date(conv[f"{k}_date_time"], tz)
            for k in conv
            if re.fullmatch(r"session_\d+", k) and isinstance(conv[k], list)
        ]
        asked_at = max(dates) + timedelta(minutes=1)
        known = {t.turn_id for t in turns if t.turn_id}
        questions = tuple(_locomo_question(sample_id, j, qa, asked_at, known) for j, qa in enumerate(sample["qa"]))
        units.append(Unit(sample_id, turns, questions))
    return units


# ------------------------------------------------------------------------ LongMemEval


def parse_lme_date(text: str, tz: tzinfo = timezone.utc) -> datetime:
    """ "2023/05/30 (Tue) 23:40" -> an aware datetime."""
    m = re.fullmatch(r"\s*(\d{4})/(\d{2})/(\d{2})\s*(?:\([A-Za-z]{3}\))?\s*(\d{1,2}):(\d{2})\s*", text)
    if m is None:
        raise ValueError(f"not a LongMemEval date: {text!r}")
    year, month, day, hour, minute = map(int, m.groups())
    return datetime(year, month, day, hour, minute, tzinfo=tz)


def _lme_unit(item: dict[str, Any], tz: tzinfo) -> Unit:
    sessions = sorted(
        zip(item["haystack_session_ids"], item["haystack_dates"], item["haystack_sessions"], strict=True),
        key=lambda s: parse_lme_date(s[1], tz),
    )
    turns, evidence, seen = [], set(), Counter()
    for session_id, date, session in sessions:
        start = parse_lme_date(date, tz)
        seen[session_id] += 1  # a haystack may hold the same session id twice
        key = session_id if seen[session_id] == 1 else f"{session_id}~{seen[session_id]}"
        for n, turn in enumerate(session):
            turn_id = f"{key}#{n}"
            if turn.get("has_answer"):
                evidence.add(turn_id)
            turns.append(
                Turn(
                    text=turn["content"] if turn["content"].strip() else "(empty)",
                    speaker=turn["role"],
                    timestamp=start + timedelta(seconds=n),
                    user_id=item["question_id"],
                    session_id=session_id,
                    turn_id=turn_id,
                )
            )
    question = Question(
        id=item["question_id"],
        question=item["question"],
        answer=str(item["answer"]),
        category=item["question_type"],
        asked_at=parse_lme_date(item["question_date"], tz),
        evidence_turns=frozenset(evidence),
        evidence_sessions=frozenset(item["answer_session_ids"]),
        abstention=item["question_id"].endswith("_abs"),
    )
    return Unit(item["question_id"], tuple(turns), (question,))


def load_longmemeval(path: str | Path, tz: tzinfo = timezone.utc, limit: int | None = None) -> list[Unit]:
    """One unit per LongMemEval question: its haystack sessions, sorted by time."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return [_lme_unit(item, tz) for item in (data[:limit] if limit else data)]
