"""Optional QA stage: answer questions from retrieved memories, score with F1 and an LLM judge.

Token F1 follows LoCoMo's ``task_eval/evaluation.py`` (normalisation, per-category rules)
except that tokens are not Porter-stemmed (no NLTK dependency). The judge follows Mem0's
LoCoMo judge: generous on wording and date format, strict on the facts.

The client side lives in :mod:`benchmarks.llm`; its public names are re-exported here.
"""

from __future__ import annotations

import json
import re
import string
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from statistics import fmean

from benchmarks.llm import LLM, ChatClient, LLMConfig, LLMError, ScriptedLLM, config_from_env

__all__ = [
    "LLM",
    "ChatClient",
    "LLMConfig",
    "LLMError",
    "QAItem",
    "QAResult",
    "ScriptedLLM",
    "answer_question",
    "config_from_env",
    "judge_answer",
    "locomo_f1",
    "normalize_answer",
    "run_qa",
    "summarize",
    "token_f1",
]

ANSWER_MAX_TOKENS = 200
JUDGE_MAX_TOKENS = 200
NOT_MENTIONED = "Not mentioned in the memories."

ANSWER_SYSTEM = (
    "You answer questions about a user's past conversations using only the memories provided. "
    "Reply with a short phrase (a few words), not a sentence, and no explanation. "
    "Write dates the way the memories give them; if a memory says something happened "
    "relative to its own date (e.g. 'last week'), work out the date it refers to. "
    f"If the memories do not contain the answer, reply exactly: {NOT_MENTIONED}"
)
ANSWER_USER = "Memories:\n{context}\n\n{date_line}Question: {question}\nShort answer:"

JUDGE_SYSTEM = "You grade answers against a gold answer. You are fair and precise."
JUDGE_USER = """Label the generated answer to a question as CORRECT or WRONG, given the gold answer.

The question asks about something said in a user's earlier conversations. The gold answer is
usually a short phrase. Be generous about wording, length and format: a longer or differently
phrased answer is CORRECT as long as it states the same facts as the gold answer. Be strict
about the facts themselves: a different person, place, object, number or time is WRONG, and so
is an answer that says it does not know when the gold answer gives a fact.

For dates and times, the same date in another format ("7 May 2023", "May 7th, 2023",
"2023-05-07") is CORRECT, and so is a relative expression that refers to the same date or
period. A different day, month or year is WRONG.

Question: {question}
Gold answer: {gold}
Generated answer: {prediction}

Give one short sentence of reasoning, then the label as JSON: {{"label": "CORRECT"}} or
{{"label": "WRONG"}}. Do not write both labels."""

_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
_PUNCT = str.maketrans("", "", string.punctuation)
_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)
_LABEL_WORD = re.compile(r"\b(CORRECT|WRONG|INCORRECT)\b")
_LABELS = {"CORRECT": True, "WRONG": False, "INCORRECT": False}
_ABSTAIN_PHRASES = (
    "not mentioned",
    "no information",
    "not available",
    "no mention",
    "not specified",
    "not stated",
    "not provided",
    "does not mention",
    "doesn't mention",
    "do not mention",
    "don't mention",
    "not enough information",
    "cannot be determined",
)


def _strip_thinking(text: str) -> str:
    """Drop ``<think>...</think>`` blocks some local reasoning models emit, then strip."""
    return _THINK.sub("", text).strip()


def answer_question(llm: LLM, question: str, context: str, question_date: str | None = None) -> str:
    """Ask ``llm`` to answer ``question`` briefly from the retrieved memory text.

    Args:
        llm: Chat model (``ChatClient`` or ``ScriptedLLM``).
        question: The benchmark question.
        context: Retrieved memories, already rendered as text.
        question_date: When the question is asked, if the data set gives it.

    Returns:
        The reply, stripped; ``NOT_MENTIONED`` (or similar) when the memories lack the answer.
    """
    date_line = f"Date of the question: {question_date}\n" if question_date else ""
    user = ANSWER_USER.format(
        context=context.strip() or "(no memories retrieved)", date_line=date_line, question=question.strip()
    )
    reply = llm.complete(
        [{"role": "system", "content": ANSWER_SYSTEM}, {"role": "user", "content": user}], max_tokens=ANSWER_MAX_TOKENS
    )
    return _strip_thinking(reply)


def judge_answer(llm: LLM, question: str, gold: str, prediction: str) -> bool:
    """Ask ``llm`` whether ``prediction`` matches ``gold`` (Mem0-style judge).

    Returns:
        ``True`` for CORRECT, ``False`` for WRONG.

    Raises:
        LLMError: When the reply holds no recognisable label (never silently counted wrong).
    """
    user = JUDGE_USER.format(
        question=question.strip(), gold=str(gold).strip(), prediction=prediction.strip() or "(empty)"
    )
    reply = llm.complete(
        [{"role": "system", "content": JUDGE_SYSTEM}, {"role": "user", "content": user}], max_tokens=JUDGE_MAX_TOKENS
    )
    return parse_judgement(reply)


def parse_judgement(reply: str) -> bool:
    """Read a judge verdict: a JSON ``{"label": ...}`` anywhere in ``reply``, else a bare label.

    Raises:
        LLMError: When no label, or both CORRECT and WRONG without JSON, is found.
    """
    text = _strip_thinking(reply)
    label = _label_from_json(text)
    if label is None:
        words = {w for w in _LABEL_WORD.findall(text.upper())}
        verdicts = {_LABELS[w] for w in words}
        if len(verdicts) != 1:
            found = "both labels" if verdicts else "no label"
            raise LLMError(f"judge reply has {found}; expected CORRECT or WRONG: {text[:200]!r}")
        return verdicts.pop()
    return label


def _label_from_json(text: str) -> bool | None:
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            obj, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("label"), str):
            value = obj["label"].strip().upper()
            if value in _LABELS:
                return _LABELS[value]
    return None


def normalize_answer(text: str) -> str:
    """Normalise as LoCoMo does: drop commas, lower-case, drop punctuation, a/an/the/and, spaces.

    >>> normalize_answer("The Cat, and a Dog!")
    'cat dog'
    """
    text = str(text).replace(",", "").lower().translate(_PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def token_f1(prediction: str, gold: str) -> float:
    """SQuAD-style token F1 between the normalised answers.

    Two empty answers score 1.0; one empty answer scores 0.0.
    """
    pred, ref = normalize_answer(prediction).split(), normalize_answer(gold).split()
    if not pred or not ref:
        return float(pred == ref)
    same = sum((Counter(pred) & Counter(ref)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(ref)
    return 2 * precision * recall / (precision + recall)


def says_not_available(prediction: str) -> bool:
    """True when ``prediction`` states the information is not in the memories."""
    text = " ".join(prediction.lower().replace("\u2019", "'").split())
    return any(phrase in text for phrase in _ABSTAIN_PHRASES)


def locomo_f1(prediction: str, gold: str | int, category: int) -> float:
    """Score ``prediction`` with LoCoMo's per-category rules.

    Category 1 (multi-hop): gold and prediction are split on commas; each gold part takes its
    best F1 over the prediction parts, and those are averaged. Category 3 keeps the gold text
    before the first ``;`` (as LoCoMo does). Categories 2-4: :func:`token_f1`.
    Category 5 (adversarial): 1.0 when the prediction says the information is not available.

    Raises:
        ValueError: For a category outside 1-5.
    """
    gold = str(gold)
    if category == 1:
        preds = [p.strip() for p in prediction.split(",")]
        golds = [g.strip() for g in gold.split(",")]
        return fmean(max(token_f1(p, g) for p in preds) for g in golds)
    if category == 3:
        return token_f1(prediction, gold.split(";")[0].strip())
    if category in (2, 4):
        return token_f1(prediction, gold)
    if category == 5:
        return 1.0 if says_not_available(prediction) else 0.0
    raise ValueError(f"LoCoMo category must be 1, 2, 3, 4 or 5, got {category!r}")


@dataclass(frozen=True)
class QAItem:
    """One question to answer, with its retrieved context.

    Attributes:
        id: Question id, unique within the run.
        question: The question text.
        gold: Reference answer.
        category: Label used for per-category figures ("1".."5", or a LongMemEval type).
        context: Retrieved memories rendered as text.
        question_date: When the question is asked, if known.
        locomo_category: LoCoMo category number; selects :func:`locomo_f1` when set.
    """

    id: str
    question: str
    gold: str
    category: str
    context: str
    question_date: str | None = None
    locomo_category: int | None = None


@dataclass(frozen=True)
class QAResult:
    """Answer and scores for one :class:`QAItem`; ``judged_correct`` is None without a judge."""

    id: str
    category: str
    prediction: str
    f1: float
    judged_correct: bool | None


def score_item(llm: LLM, item: QAItem, *, judge: bool = True) -> QAResult:
    """Answer one item, then (optionally) judge it: one or two ``llm`` calls, in that order."""
    prediction = answer_question(llm, item.question, item.context, item.question_date)
    if item.locomo_category is not None:
        f1 = locomo_f1(prediction, item.gold, item.locomo_category)
    else:
        f1 = token_f1(prediction, item.gold)
    verdict = judge_answer(llm, item.question, item.gold, prediction) if judge else None
    return QAResult(item.id, item.category, prediction, f1, verdict)


def run_qa(
    llm: LLM, items: Iterable[QAItem], *, judge: bool = True, progress: Callable[[int, int], None] | None = None
) -> list[QAResult]:
    """Answer (and judge) every item in order.

    For each item the answer call comes first, then its judge call.

    Args:
        llm: Chat model used for both answering and judging.
        items: Questions with their retrieved context.
        judge: Whether to ask the LLM judge; without it ``judged_correct`` is None.
        progress: Called as ``progress(done, total)`` after each item.
    """
    items = list(items)
    results = []
    for done, item in enumerate(items, start=1):
        results.append(score_item(llm, item, judge=judge))
        if progress is not None:
            progress(done, len(items))
    return results


def _aggregate(results: list[QAResult]) -> dict:
    judged = [r.judged_correct for r in results if r.judged_correct is not None]
    return {
        "f1": fmean(r.f1 for r in results) if results else None,
        "judge_accuracy": fmean(map(float, judged)) if judged else None,
        "n": len(results),
    }


def summarize(results: list[QAResult]) -> dict:
    """Mean F1 and judge accuracy, overall and per category.

    Returns:
        ``{"f1", "judge_accuracy", "n", "by_category": {cat: {"f1", "judge_accuracy", "n"}}}``;
        ``judge_accuracy`` averages judged results only and is None when none were judged;
        ``f1`` is None when there are no results. Categories are sorted.
    """
    groups: dict[str, list[QAResult]] = defaultdict(list)
    for result in results:
        groups[result.category].append(result)
    summary = _aggregate(results)
    summary["by_category"] = {cat: _aggregate(groups[cat]) for cat in sorted(groups)}
    return summary
