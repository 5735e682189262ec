"""Stage 1b: statement analysis — how each clause is said, before slots and happenings.

For every clause of a turn: its polarity (affirmed / negated / ceased), its modality
(stated, question, hypothetical, wish, reported), whether it is about the past or a plan,
and whether it corrects or adds to what was said before. Markers are data
(``lexicons/statements.yaml``); in English the dependency parse narrows them to the verb the
slot or happening hangs on ("I don't think I'll ever stop loving pizza": the negation is on
"think", not on "loving"), and its morphology gives the tense ("I loved the show" is past).

A slot value or happening asks :func:`statement_for` about its own span; what it gets back
decides whether it becomes a fact, a negative fact, a plan, a correction — or nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from memtracks.data.lexicons import default_lexicons
from memtracks.data.statements import Markers, default_markers
from memtracks.pipeline.nlp import ParsedToken, fronted_clause, opens_sentence
from memtracks.pipeline.text import Sentence, sentence_at, sentences
from memtracks.records import TimeMention

_CLAUSE = re.compile(r"[^,;:.!?，。；：！？\n~～…]+[,;:.!?，。；：！？\n~～…]*")
_WISH_VERBS = frozenset({"want", "wish", "hope", "dream", "plan", "intend", "consider", "think"})
_SAY_VERBS = frozenset({"say", "tell", "hear", "claim", "think", "believe", "guess"})
# "I started working as a nurse": the act begun or kept up is said by the verb that starts it
_ASPECT_VERBS = frozenset({"start", "begin", "continue", "keep", "resume"})
_STATIVE = frozenset(
    {
        "be",
        "live",
        "work",
        "have",
        "own",
        "drive",
        "study",
        "like",
        "love",
        "enjoy",
        "hate",
        "prefer",
        "stay",
        "reside",
        "dislike",
        "adore",
    }
)
_FUTURE_AUX = frozenset({"will", "shall", "'ll", "wo", "gonna"})
_HYPOTHETICAL_AUX = frozenset({"would", "could", "might", "'d"})


@dataclass(frozen=True)
class Statement:
    """How one clause is said. ``cues`` are the categories found; the properties read them."""

    start: int
    end: int
    cues: frozenset[str]
    future_time: bool = False  # the clause names a time after it was said
    future_at: int = -1  # where that time starts

    @property
    def polarity(self) -> str:
        if "ceased" in self.cues:
            return "ceased"
        return "negated" if "negated" in self.cues else "affirmed"

    @property
    def modality(self) -> str:
        for mood in ("question", "hypothetical", "wish", "reported"):
            if mood in self.cues:
                return mood
        return "stated"

    @property
    def planned(self) -> bool:
        return ("planned" in self.cues or self.future_time) and not self.cues & {"past", "done"}

    @property
    def states(self) -> bool:
        """Does the clause assert something about the world (not asked, imagined, wished)?"""
        return self.modality in ("stated", "reported")


# a space between Chinese characters, or an emoji (with any space after it) before a word: chat's commas
_CHAT_COMMA = re.compile(
    r"(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])|(?<=[\U0001F300-\U0001FAFF\u2600-\u27BF])\s*(?=[\u4e00-\u9fffA-Za-z])"
)


def clauses(text: str) -> list[tuple[int, int]]:
    """Clause spans: split at punctuation, at spaces between Chinese characters and after an
    emoji before a word (chat writes them for commas: "我最近在学做饭 室友天天点外卖",
    领证啦💍 婚礼明年再办, "will do that 😅 we're Denver people now"); a clause never crosses a
    sentence end."""
    out = []
    for m in _CLAUSE.finditer(text):
        if not m.group().strip():
            continue
        start = m.start()
        for gap in _CHAT_COMMA.finditer(m.group()):
            out.append((start, m.start() + gap.start()))
            start = m.start() + gap.end()
        out.append((start, m.end()))
    return out


def analyze_statements(
    text: str,
    lang: str,
    markers: Markers,
    times: Sequence[TimeMention] = (),
    parsed: Sequence[ParsedToken] = (),
    said_at=None,
) -> tuple[Statement, ...]:
    """One :class:`Statement` per clause of ``text`` (pure)."""

    search = text if lang == "en" else _mask_terms(markers_text(text))
    sents = sentences(text)
    spans = clauses(text)
    out: list[Statement] = []
    for n, (start, end) in enumerate(spans):
        piece = search[start:end]
        cues = set(markers.found(lang, piece))
        if not _asked(search, sents, spans, n, "question" in cues):
            cues.discard("question")
        else:
            cues.add("question")
        if out and "correction" in out[-1].cues and _marker_only(search[out[-1].start : out[-1].end]):
            cues.add("correction")  # "Sorry, typo: I'm 43": the marker stands before what it corrects
        ahead = [t.span[0] for t in times if start <= t.span[0] < end and t.direction == "future"]
        out.append(Statement(start, end, frozenset(cues), bool(ahead), min(ahead, default=-1)))
    return tuple(out)


_ALTERNATIVE = re.compile(r"^\W*(?:or\b|还是|或者|抑或)", re.IGNORECASE)


def _asked(
    search: str, sents: Sequence[Sentence], spans: Sequence[tuple[int, int]], n: int, interrogative: bool
) -> bool:
    """Is clause ``n`` asked? Only in a sentence that ends in a question mark, and there only the
    clause that carries the mark, a clause asking by its own words (``interrogative``: "Do you
    think...", 要不要, 什么) and the clauses of an either-or question ("Should I stay, or move?",
    留在北京，还是搬去上海？). A clause told before the question stays told: "I moved to Denver last
    month, any tips?", 我上个月搬到成都了，有什么推荐吗？"""
    start, _ = spans[n]
    sent = sentence_at(sents, start)
    if not sent.question:
        return False
    later = [(s, e) for s, e in spans[n + 1 :] if s < sent.end and re.search(r"\w", search[s:e])]
    if not later or interrogative:
        return True
    return any(_ALTERNATIVE.match(search[s:e]) for s, e in later)


def asked_at(statements: Sequence[Statement], pos: int) -> bool:
    """Is the clause at ``pos`` asked (see :func:`_asked`)?"""
    return any(s.start <= pos < s.end and "question" in s.cues for s in statements)


def _marker_only(clause: str) -> bool:
    """A clause that is only a correction marker ("sorry, typo:", 不好意思打错了)."""
    return len(re.findall(r"[A-Za-z]+|[\u4e00-\u9fff]", clause)) <= 8


def markers_text(text: str) -> str:
    """Chinese text as the markers see it: Traditional characters mapped to Simplified."""

    return default_lexicons().to_simplified(text)


def _mask_terms(text: str) -> str:
    """Words whose own characters read as markers (乳糖不耐受, 心律不齐, 消化不良) hidden
    from the markers: 不 there negates nothing."""
    for term in _marker_words():
        if term in text:
            text = text.replace(term, "＿" * len(term))
    return text


@lru_cache(maxsize=1)
def _marker_words() -> tuple[str, ...]:

    lex = default_lexicons()
    forms = [f for terms in (lex.conditions, lex.activities, lex.jobs) for f in terms.forms("zh")]
    return tuple(sorted({f for f in forms if re.search("[不没未非别]", f)}, key=len, reverse=True))


def statement_for(
    statements: Sequence[Statement],
    span: tuple[int, int],
    parsed: Sequence[ParsedToken] = (),
    chain_clauses: bool = False,
) -> Statement:
    """The statement a match at ``span`` belongs to; in English narrowed by the parse.
    ``chain_clauses`` (Chinese): a match over several clauses is said at the future time a
    later one names."""
    inside = [s for s in statements if s.start <= span[0] < s.end]
    if not inside:
        return Statement(span[0], span[1], frozenset())
    st = inside[0]
    # a match spanning several clauses ("I live in Boston, not Chicago") takes their
    # corrections; in Chinese, where a clause chain shares one subject, also the future time
    # a later clause names (一家外企，叫美敦力，下个月一号入职: a plan).
    spanned = [s for s in statements if span[0] < s.start < span[1]]
    extra = frozenset().union(*(s.cues for s in spanned + _bare_beside(statements, st)))
    cues = st.cues | (extra & {"correction"})
    chained = spanned if chain_clauses else []
    future = st.future_time or any(s.future_time for s in chained)
    end = max([st.end, *(s.end for s in chained)])
    if parsed:
        cues = _narrow(cues, parsed, span, (st.start, st.end))
        # a fact said as a noun phrase ("my girlfriend Anna is coming tonight") is not planned
        # by the time of the clause it stands in, nor one whose time belongs to a verb joined
        # after it ("We live in Sacramento but we're moving to Boise in November")
        verb = _anchor_verb(parsed, span)
        future = future and verb is not None and not _joined_before(parsed, verb, span[1], st.future_at)
    return Statement(st.start, end, frozenset(cues), future, st.future_at)


def _joined_before(parsed: Sequence[ParsedToken], verb: ParsedToken, after: int, time_at: int) -> bool:
    """Is a verb joined to ``verb`` ("... but we're moving") said between the match's end and
    the future time (``time_at``), so that the time is that verb's?"""
    return time_at >= 0 and any(
        t.dep == "conj" and t.head == verb.i and t.pos in ("VERB", "AUX") and after <= t.idx < time_at for t in parsed
    )


_BARE = 6  # characters: a clause this short holding a correction word is the word alone (不对, 说错了)


def _bare_beside(statements: Sequence[Statement], st: Statement) -> list[Statement]:
    """The clauses right before and after ``st`` that are a correction word alone (不对，我是住在苏州;
    住在苏州，说错了): their correction is said of ``st``."""
    out = []
    for other in statements:
        beside = 0 <= st.start - other.end <= 2 or 0 <= other.start - st.end <= 2
        if other is not st and beside and other.end - other.start <= _BARE and "correction" in other.cues:
            out.append(other)
    return out


def _narrow(
    cues: frozenset[str], parsed: Sequence[ParsedToken], span: tuple[int, int], clause: tuple[int, int]
) -> frozenset[str]:
    """Use the parse: cues count only when they attach to the verb the match hangs on."""
    verb = _anchor_verb(parsed, span)
    if verb is None:
        return cues
    verb = _aspect_head(parsed, verb)
    chain = _head_chain(parsed, verb)
    children = [t for t in parsed if t.head in {v.i for v in chain[:1]} and t.i != verb.i]
    lemmas = {t.lower for t in children}
    out = set(cues) - _said_after(parsed, verb, clause, lemmas, cues)
    # the verb and its own words ("I have no car": no hangs on car); not a verb joined to it
    # ("I'm vegan and can't have tahini": the negation is the second verb's)
    near = {verb.i} | {t.i for t in children if t.dep not in _OWN_CLAUSE}
    negated = any((t.dep == "neg" or t.lower in ("never", "no", "not", "n't")) and t.head in near for t in parsed)
    if not negated and "ceased" not in out:
        out.discard("negated")
    if verb.tag in ("VBD", "VBN") and not (lemmas & (_FUTURE_AUX | _HYPOTHETICAL_AUX)) and "going" not in lemmas:
        out.add("done")  # a finished act ("I quit on Friday") is no plan, whatever its time
    if verb.tag == "VBD" and verb.lemma in _STATIVE and not (lemmas & (_FUTURE_AUX | _HYPOTHETICAL_AUX)):
        out.add("past")  # "I lived in Boston" held then; "I adopted a puppy" still holds
    if verb.tag == "VBG" and any(t.dep == "aux" and t.tag == "VBD" for t in children):
        out.add("occasion")  # "I was playing video games and my pet slinked out": one scene, no habit
    if lemmas & _FUTURE_AUX:
        out.add("planned")
    if lemmas & _HYPOTHETICAL_AUX:
        out.add("hypothetical")
    if any(t.dep == "mark" and t.lower in ("if", "unless") for t in children):
        out.add("hypothetical")
    for up in (u for u in chain[1:3] if u.idx < verb.idx):  # "I want to ...", not a comma splice after
        if up.lemma in _WISH_VERBS and verb.dep in ("xcomp", "ccomp"):
            out.add("wish" if up.lemma != "plan" else "planned")
        if up.lemma in _SAY_VERBS and verb.dep == "ccomp" and up.lemma in ("say", "tell", "hear"):
            out.add("reported")
    if (
        verb.dep in ("xcomp", "advcl", "acl", "relcl", "pcomp")
        and not any(t.dep in ("nsubj", "nsubjpass") for t in children)
        and not _said_alone(parsed, verb)
    ):
        out.add("hypothetical")  # "a way to ... enjoy nature": no subject of its own
    if "question" not in out and _asks_after(parsed, verb):
        out.add("question")
    return frozenset(out)


_OWN_CLAUSE = frozenset({"conj", "advcl", "ccomp", "relcl", "parataxis", "acl"})
_CONDITIONS = frozenset({"if", "unless"})
# cues a clause that follows the verb says of itself, not of the verb
_SCOPED_CUES = frozenset({"planned", "wish", "hypothetical", "past", "ceased"})


def _said_after(
    parsed: Sequence[ParsedToken], verb: ParsedToken, clause: tuple[int, int], lemmas: set[str], cues: frozenset[str]
) -> set[str]:
    """The cues of ``clause`` said only in a clause that follows the verb and hangs below it: "I
    live in Boston and don't plan to leave" (the plan is the second verb's), "I'm 41 if that
    matters", "I live in Leeds if you want to visit" (the condition and its "want to" are said of
    the visit). A condition is no trailing talk after a plan or a verb with its own "would" ("I'm
    moving to Denver if the job comes through", "I'd live in Leeds if I could"), nor after a
    present or past that is not told plainly."""
    if not cues & _SCOPED_CUES:
        return set()
    below = _subtree(parsed, verb.i)
    plain = verb.tag in ("VBP", "VBZ", "VBD") and not lemmas & (_HYPOTHETICAL_AUX | _FUTURE_AUX)
    trailing: set[int] = set()
    for t in parsed:
        if not (clause[0] <= t.idx < clause[1]) or t.idx <= verb.idx or t.dep not in _OWN_CLAUSE:
            continue
        if t.i not in below or t.i in trailing:
            continue
        condition = any(c.head == t.i and c.dep == "mark" and c.lower in _CONDITIONS for c in parsed)
        if condition and (not plain or "planned" in cues):
            continue
        trailing |= _subtree(parsed, t.i)
    if not trailing:
        return set()
    rest = " ".join(t.text for t in parsed if clause[0] <= t.idx < clause[1] and t.i not in trailing)
    found = default_markers().found("en", rest)
    return {c for c in cues & _SCOPED_CUES if c not in found}


def _subtree(parsed: Sequence[ParsedToken], root: int) -> set[int]:
    heads = {t.i: t.head for t in parsed}
    out = set()
    for t in parsed:
        i, seen = t.i, 0
        while i != root and heads.get(i, i) != i and seen < len(parsed):
            i, seen = heads[i], seen + 1
        if i == root:
            out.add(t.i)
    return out


def _asks_after(parsed: Sequence[ParsedToken], verb: ParsedToken) -> bool:
    """A question mark closes the verb's own clause: no comma or sentence end comes between."""
    for t in parsed:
        if t.idx <= verb.idx:
            continue
        if t.text in ("?", "？"):
            return True
        if t.text in (",", ";", ":", ".", "!", "，", "。", "；", "！"):
            return False
    return False


def _said_alone(parsed: Sequence[ParsedToken], verb: ParsedToken) -> bool:
    """ "Picked up an Ioniq yesterday, the Golf is gone", "Starting at EY on Monday, can't believe
    it": a past verb or a participle opening the sentence, cut off from its head by a comma, is a
    clause of its own whose "I" chat leaves out."""
    head = next((t for t in parsed if t.i == verb.head), None)
    return (
        verb.dep == "advcl"
        and verb.tag in ("VBD", "VBN", "VBG")
        and head is not None
        and opens_sentence(parsed, verb)
        and fronted_clause(parsed, verb, head)
    )


def _aspect_head(parsed: Sequence[ParsedToken], verb: ParsedToken) -> ParsedToken:
    """The verb that says an act begun, kept up or coming: 'started' in 'I started working as a
    nurse', 'going' in 'I'm going to work as a nurse' (its subject, tense, negation and mood are
    the act's)."""
    by_i = {t.i: t for t in parsed}
    while verb.dep == "xcomp" and verb.head in by_i:
        head = by_i[verb.head]
        going_to = head.lemma == "go" and head.tag == "VBG" and head.idx < verb.idx  # "I'm going to work as"
        if head.lemma not in _ASPECT_VERBS and not going_to:
            break
        verb = head
    return verb


def _anchor_verb(parsed: Sequence[ParsedToken], span: tuple[int, int]) -> ParsedToken | None:
    inside = [t for t in parsed if span[0] <= t.idx < span[1]]
    for t in inside:
        if t.pos in ("VERB", "AUX") and t.dep not in ("aux", "auxpass", "neg"):
            return t
    return None


def _head_chain(parsed: Sequence[ParsedToken], token: ParsedToken) -> list[ParsedToken]:
    by_i = {t.i: t for t in parsed}
    chain, seen = [token], {token.i}
    while chain[-1].head in by_i and chain[-1].head not in seen:
        nxt = by_i[chain[-1].head]
        seen.add(nxt.i)
        chain.append(nxt)
    return chain
