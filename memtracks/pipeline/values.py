"""Well-formed slot values: a typed validator per value kind (``rules/slots.yaml``).

A value must read as a noun phrase of its slot's kind — a place for ``lives_in``, an
organisation for ``employer``, a thing or activity for ``likes`` — not a pronoun, a lone
determiner, a verb, a time, an empty string or a fragment cut out of a longer phrase. When
in doubt the value is refused: the turn stays an event (precision before recall).

:func:`check_value` returns None for a good value, else the reason it was refused.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memtracks.data.lexicons import Lexicons
from memtracks.pipeline.language import has_han
from memtracks.pipeline.nlp import ParsedToken, Token
from memtracks.pipeline.numerals import says_a_number
from memtracks.records import Entity

_OWN_EN = frozenset({"my", "our"})
_PRONOUNS_EN = frozenset(
    "i me my mine myself we us our ours you your yours he him his she her hers it its they them their "
    "theirs this that these those something anything everything nothing someone anyone everyone one ones "
    "what which who whom whose there here".split()
)
_FUNCTION_EN = frozenset(
    "a an the of to in on at for with and or but from by into about like as than so if that which who "
    "is are was were be been being am do does did have has had will would can could should up out off "
    "more most even very too just also really".split()
)
# Head nouns that, liked, are comments on something at hand rather than lasting preferences.
_VAGUE_EN = frozenset(
    "upside downside way idea fact thing things stuff feeling feelings part moment moments time lot bit kind sort "
    "process rush energy color colour colors texture smell taste thought thoughts tech vibe vibes freedom "
    "connection structure diversity rest sound sounds look looks design atmosphere view views scenery sky "
    "self place places spot job work goal goals pic pics picture photo photos one idea ideas result results "
    "support effort effort progress experience experiences story stories detail details".split()
)
_PRONOUNS_ZH = (
    "我",
    "你",
    "他",
    "她",
    "它",
    "这",
    "那",
    "哪",
    "谁",
    "什么",
    "啥",
    "自己",
    "大家",
    "别人",
    "人家",
    "咱",
)
_INTERJECTIONS_ZH = set("哈呵嘿嗯啊哦呀吧呢嘛啦哇诶欸噢")
_PLACE_SUFFIX_ZH = re.compile(r"(?:市|省|区|县|镇|村|州|岛|路|街|湾|港|城|国|山|湖|河|江)$")
_ORG_SUFFIX_ZH = re.compile(
    r"(?:公司|集团|银行|大学|学院|学校|医院|中心|研究所|研究院|工厂|厂|店|局|所|部|台|社|馆|科技|网络|事务所)$"
)
_NOT_THING_TAGS_ZH = ("v", "r", "t", "m", "d", "p", "c", "u", "y", "e", "q")  # verbs, pronouns, times, numbers...
# a short given name is tagged unreliably (志明: 志/n 明/t, 秋月: 秋/t): only these refuse it
_NOT_NAME_TAGS_ZH = ("v", "r", "p", "c", "u", "y", "e")
_NOT_BRAND_TAGS_ZH = ("r", "p", "c", "u", "y", "e", "t", "m", "q", "d", "f", "s")
_GLUED_ZH = "和跟与與同叫"
_MAX_WORDS = {
    "place": 5,
    "org": 6,
    "person": 4,
    "thing": 6,
    "product": 6,
    "title": 5,
    "text": 10,
    "pet": 5,
    "language": 3,
    "condition": 5,
}


def _org_in_place(span: tuple[int, int], entities: Sequence[Entity]) -> bool:
    """Is ``span`` an organisation the recogniser found followed by a place it found, the two
    making the whole span (Google台湾, 三星越南)?"""
    return any(
        o.label == "org"
        and o.span[0] == span[0]
        and any(p.label == "place" and p.span == (o.span[1], span[1]) for p in entities)
        for o in entities
    )


def _noun_read_as_infinitive(tags: Sequence[ParsedToken], text: str) -> bool:
    """A lone word the tagger reads as a verb because "to" stands before it ("allergic to
    shellfish": VB): after a preposition by the pattern's own words, it is the thing."""
    return len(tags) == 1 and tags[0].tag == "VB" and text[: tags[0].idx].rstrip().lower().endswith(" to")


def check_value(
    value: str,
    kind: str,
    lang: str,
    span: tuple[int, int] | None = None,
    text: str = "",
    entities: Sequence[Entity] = (),
    parsed: Sequence[ParsedToken] = (),
    tokens: Sequence[Token] = (),
    *,
    elided: bool = False,
    lexicons: Lexicons | None = None,
    framed: bool = False,
) -> str | None:
    """None if ``value`` is a well-formed value of ``kind``, else why not.

    Args:
        value: the value as extracted (already cleaned).
        kind: the slot's value kind: place, org, person, thing, product, car, title, number,
            date, text, language, pet, condition.
        lang: "en" or "zh".
        span: where the value sits in ``text`` (for the parse, the tags and its neighbours).
        entities, parsed, tokens: the turn's entities, English parse, Chinese words.
        elided: the value stands for a phrase whose noun the sentence names elsewhere ("my
            favourite colour is blue": blue [colour]), so an adjective may head it.
        lexicons: for a car, the vehicles it must name (``lexicons/vehicles.yaml``); without
            them a car is checked as any product.
        framed: the words around the value say what it is (在美的做采购: a workplace), so a
            Chinese name's word tags are not held against it (美的 reads as a person, 海底捞 as
            a verb phrase); pronouns, places and cut words still are.
    """
    value = value.strip()
    if not value:
        return "empty"
    if kind == "car":
        simplified = lexicons.to_simplified(value) if lexicons is not None else value
        if lexicons is not None and not lexicons.vehicles.is_car(simplified):
            return "names no car (a bicycle, a scooter, or no make, model or word for a car)"
        kind = "product"
    if kind == "number" and not says_a_number(value):
        return 'holds no number ("I\'m not that old yet" is no age)'
    if kind in ("number", "date"):
        return None
    if kind == "person" and lexicons is not None and _names_a_relation(value, lang, lexicons):
        return "a relation, not a name (我和男朋友领证了: no name)"
    if kind == "org" and lang == "zh" and span and any(e.label == "place" and e.span == span for e in entities):
        return "a place, not an organisation (在新竹上班: works in a city)"
    if kind == "place" and span and any(e.label == "org" and e.span == span for e in entities):
        return "an organisation, not a place (离开台积电: left an employer)"
    if lang == "en" and not has_han(value):  # Latin, accents too: Nestlé, Zürich, São Paulo
        return _check_en(value, kind, span, text, entities, parsed, elided, framed)
    return _check_zh(value, kind, span, tokens, entities, elided, framed)


def _names_a_relation(value: str, lang: str, lexicons: Lexicons) -> bool:
    """Is ``value`` a word for a relation ("boyfriend", 老公), or a piece cut from one (男朋)?"""
    if lang != "zh":
        return value.lower() in {f.lower() for f in lexicons.relations.forms("en")}
    simplified = lexicons.to_simplified(value)
    return any(form.startswith(simplified) for form in lexicons.relations.forms("zh") if len(form) > 1)


def _check_en(value, kind, span, text, entities, parsed, elided=False, framed=False) -> str | None:
    words = re.findall(r"[\w'&.+-]+", value)
    lower = [w.lower() for w in words]
    if not words:
        return "no words"
    if len(words) > _MAX_WORDS.get(kind, 6):
        return "too long for a value"
    # an aim or a named activity may hold the speaker's own ("build my own family", "playing my violin")
    own = _OWN_EN if (kind == "text" or framed) and len(words) > 1 else frozenset()
    if any((w in _PRONOUNS_EN or w.rstrip("'s") in _PRONOUNS_EN) and w not in own for w in lower):
        return "contains a pronoun"
    # an aim may start with a verb that is also an auxiliary ("to have a family", "to be a nurse")
    starts = _FUNCTION_EN - {"a", "an", "the"} - ({"have", "be", "do"} if kind == "text" and len(words) > 1 else set())
    if lower[-1] in _FUNCTION_EN or lower[0] in starts:
        return "starts or ends with a function word (a fragment)"
    if all(w in _FUNCTION_EN for w in lower):
        return "only function words"
    if framed:
        return None  # the words around it say what it is ("Painting's my therapy"): its tags are not held against it
    if span is not None and text:
        after = text[span[1] : span[1] + 1]
        before = text[span[0] - 1 : span[0]] if span[0] > 0 else ""
        if after in "-'" and after != "" or before == "-":
            return "cut out of a hyphenated word"
    named = (
        any(e.span[0] <= (span or (0, 0))[0] and (span or (0, 0))[1] <= e.span[1] for e in entities) if span else False
    )
    tags = _tags(parsed, span)
    if kind in ("thing", "text") and not named:
        if lower[0] == "the" and not (len(words) > 1 and words[1][:1].isupper()):
            return "a definite 'the ...': a comment on something at hand"
        if "to" in lower[1:] and (kind == "thing" or _infinitive_inside(tags)):
            return "an infinitive inside ('events to practice ...'): a clause, not a thing"
        # an act ("quit my job") may take any noun for its object
        if lower[-1] in _VAGUE_EN and not (kind == "text" and tags and tags[0].pos == "VERB"):
            return f"vague head noun '{lower[-1]}'"
    if tags and span is not None and kind in ("thing", "title", "condition", "product", "text"):
        cut = _cut_phrase(parsed, tags, span, kind, elided)
        if cut:
            return cut
    if tags:
        if any(t.tag in ("VBD", "VBZ", "VBP", "MD") for t in tags):
            return "contains a finite verb (a clause, not a thing)"
        head = tags[-1]
        if (
            kind in ("thing", "product", "title", "condition")
            and head.pos not in ("NOUN", "PROPN")
            and not named  # a name is a name whatever the tagger makes of it ("Radiohead": ADJ)
            and not (tags[0].tag == "VBG")
            and not _noun_read_as_infinitive(tags, text)
            and not (head.pos == "NUM" and kind == "product")
            and not (elided and head.pos == "ADJ")
        ):
            return f"head '{head.text}' is {head.pos}, not a noun or an activity"
        if (
            kind in ("place", "org", "person")
            and not named
            and not all(w[:1].isupper() or w.lower() in ("of", "and", "the", "de") for w in words)
        ):
            return f"a {kind} must be a name"
    elif kind in ("place", "org", "person") and not named and not words[0][:1].isupper():
        return f"a {kind} must be a name"
    return None


def _infinitive_inside(tags: Sequence[ParsedToken]) -> bool:
    """Does "to" among the value's words take a verb ("events to practice"), not a noun ("go back
    to school")? Without a parse, any "to" is taken for one."""
    if not tags:
        return True
    return any(t.lower == "to" and nxt.tag == "VB" for t, nxt in zip(tags, tags[1:], strict=False))


def _cut_phrase(
    parsed: Sequence[ParsedToken], tags: list[ParsedToken], span: tuple[int, int], kind: str, elided: bool = False
) -> str | None:
    """The value was cut out of a longer phrase: its last word modifies a noun after it
    ("action [and sci-fi] movies"), or a modifier of it was left out ("animals [with fur]").
    An ``elided`` value's noun is elsewhere ("my favourite colour is green, not blue"): the
    parser's attaching it to a noun after it says nothing."""
    last = tags[-1]
    by_i = {t.i: t for t in parsed}
    head = by_i.get(last.head)
    modifies = last.dep in ("compound", "amod", "nmod", "poss", "nummod")
    if modifies and not elided and head is not None and head.idx >= span[1]:
        return f"'{last.text}' modifies a noun outside the value"
    if any(t.head == last.i and t.dep == "prt" and t.idx >= span[1] for t in parsed):
        return f"'{last.text}' has a particle after it: another verb ('writing down', 'playing around')"
    cut_deps = ("prep", "acl", "relcl") if kind == "thing" else ("acl", "relcl")  # "a nurse at X" is whole
    for t in parsed:
        if t.head != last.i or t.idx < span[1] or t.dep not in cut_deps:
            continue
        first = min([u.idx for u in parsed if u.idx >= span[1] and _within(parsed, u, t)], default=t.idx)
        between = [u for u in parsed if span[1] <= u.idx < first]
        if not any(u.pos == "PUNCT" for u in between):
            return "a modifier of the value was cut off"
    return None


# Dependents that belong to the phrase of their head: a value cut before one of them was cut
# inside a phrase ("create a safe [and loving home]"). Clauses and attachments (prep, relcl,
# advcl, a second verb joined by "and") end a phrase and are left out.
_INSIDE_PHRASE = frozenset(
    "det amod compound nummod poss case quantmod nmod dobj pobj prt cc conj advmod npadvmod neg".split()
)
_VERBAL = ("VERB", "AUX")


def whole_phrase(span: tuple[int, int], parsed: Sequence[ParsedToken], text: str) -> tuple[int, int]:
    """``span`` widened to the whole phrase the parse says it is part of.

    A regex stops at the first "and" or comma; the parse knows that "a safe and loving home"
    is one noun phrase. The span grows to the right while a word in it modifies a word after
    it (its head lies beyond), or a word after it depends on one inside as part of the same
    phrase (an object, a modifier, a coordinated adjective). It never grows across a clause
    boundary: a prepositional attachment, a relative clause, a second verb joined by "and".
    """
    if not parsed:
        return span
    by_i = {t.i: t for t in parsed}
    start, end = span
    for _ in range(len(parsed)):
        inside = [t for t in parsed if start <= t.idx < end]
        grown = end
        for t in inside:
            head = by_i.get(t.head)
            if head is not None and head.idx >= end and head.pos not in _VERBAL and head.pos != "PUNCT":
                grown = max(grown, head.idx + len(head.text))
        for t in parsed:
            head = by_i.get(t.head)
            if t.idx < end or head is None or not (start <= head.idx < end) or t.dep not in _INSIDE_PHRASE:
                continue
            if t.dep in ("conj", "cc") and head.pos in _VERBAL:
                continue  # "run a marathon and raise money": two aims, the first is whole
            if t.dep in ("conj", "cc") and _joins_a_verb(parsed, t):
                continue  # "I'm single and loving it": a second clause, not more of the value
            if _comma_between(parsed, end, t.idx):
                continue  # "..., no idea when": a new clause
            grown = max(grown, _right_edge(parsed, t))
        if grown == end:
            break
        end = grown
    return (start, end)


def _joins_a_verb(parsed: Sequence[ParsedToken], t: ParsedToken) -> bool:
    """Is ``t`` a verb joined to its head by "and", or the "and" that joins one?"""
    if t.dep == "conj":
        return t.pos in _VERBAL
    after = (u for u in parsed if u.idx > t.idx and u.dep not in ("neg", "advmod"))  # "and not looking"
    following = next(after, None)
    return following is not None and following.pos in _VERBAL


def _right_edge(parsed: Sequence[ParsedToken], root: ParsedToken) -> int:
    """Where the phrase headed by ``root`` ends, clauses and attachments after it left out."""
    edge = root.idx + len(root.text)
    for t in parsed:
        if t.head == root.i and t.i != root.i and t.idx > root.idx and t.dep in _INSIDE_PHRASE:
            if t.dep in ("conj", "cc") and root.pos in _VERBAL or _comma_between(parsed, edge, t.idx):
                continue
            edge = max(edge, _right_edge(parsed, t))
    return edge


def _comma_between(parsed: Sequence[ParsedToken], start: int, end: int) -> bool:
    return any(u.pos == "PUNCT" and u.tag != "HYPH" and start <= u.idx < end for u in parsed)


def _within(parsed: Sequence[ParsedToken], token: ParsedToken, root: ParsedToken) -> bool:
    """Is ``token`` in the subtree of ``root``?"""
    by_i = {t.i: t for t in parsed}
    seen = set()
    while token.i not in seen:
        if token.i == root.i:
            return True
        seen.add(token.i)
        nxt = by_i.get(token.head)
        if nxt is None or nxt.i == token.i:
            return False
        token = nxt
    return False


def _tags(parsed: Sequence[ParsedToken], span: tuple[int, int] | None) -> list[ParsedToken]:
    if not parsed or span is None:
        return []
    return [t for t in parsed if span[0] <= t.idx < span[1] and t.pos != "PUNCT"]


def _check_zh(value, kind, span, tokens, entities, elided=False, framed=False) -> str | None:
    if all(ch in _INTERJECTIONS_ZH for ch in value):
        return "an interjection"
    if value.startswith(_PRONOUNS_ZH) or value.endswith(("这边", "那边", "这里", "那里", "这儿", "那儿")):
        return "a pronoun or demonstrative, not a name"
    if len(value) > 16:
        return "too long for a value"
    words = [t for t in tokens if span and span[0] <= t.start and t.end <= span[1] and t.tag != "x"]
    named = bool(span) and any(e.span[0] <= span[0] and span[1] <= e.span[1] for e in entities)
    exact = bool(span) and any(e.span == span for e in entities)
    if kind == "org" and span and _org_in_place(span, entities):
        named = exact = True  # a firm and the place of its branch: Google台湾, 微软中国
    if kind in ("place", "org", "person") and span and not exact and _cuts_a_word(span, tokens):
        return "cut out of a word (住在中和: 中)"
    if kind in ("place", "org", "person") and not named and not framed:
        # a short name is tagged unreliably (志明: 志/n 明/t; 蔚来: 蔚/nr 来/v; 友达: a): a
        # person's is refused for a verb or pronoun only, an organisation's for a function,
        # time, number or place word, or a verb first
        brand = kind == "org" and 2 <= len(value) <= 4 and bool(words) and _cls(words[0].tag) != "v"
        refused = (
            _NOT_NAME_TAGS_ZH
            if kind == "person" and len(value) <= 3
            else _NOT_BRAND_TAGS_ZH
            if brand
            else _NOT_THING_TAGS_ZH
        )
        if any(_cls(t.tag) in refused for t in words):
            return "contains a verb, pronoun, time or number"
        nouns = bool(words) and all(_cls(t.tag) in ("n", "j", "eng") for t in words) and 2 <= len(value) <= 6
        if kind == "place" and not (_PLACE_SUFFIX_ZH.search(value) or nouns):
            return "not a known place"
        if kind == "org" and not (_ORG_SUFFIX_ZH.search(value) or nouns or brand or value.isascii()):
            return "not an organisation"
        if kind == "person" and len(value) > 4:
            return "not a name"
    if kind in ("thing", "text", "condition", "product") and words:
        if _cls(words[0].tag) in ("r", "u", "y", "e", "c", "p") or _cls(words[-1].tag) in ("u", "y", "e", "c", "p"):
            return "starts or ends with a function word (a fragment)"
        if all(_cls(t.tag) in ("t", "m", "q") for t in words) and not elided:
            return "a time or number, not a thing"  # (我最喜欢的季节是夏天: the season is the value)
    return None


def _cuts_a_word(span: tuple[int, int], tokens: Sequence[Token]) -> bool:
    """Does a jieba word cross either end of ``span``? A preposition jieba glued to a name
    (和志明, 跟婷婷) is no word the name is cut from."""
    return any(
        (t.start < span[0] < t.end and not (span[0] == t.start + 1 and t.text[:1] in _GLUED_ZH))
        or t.start < span[1] < t.end
        for t in tokens
    )


def _cls(tag: str) -> str:
    """The class of a jieba tag: its first letter ("uj" -> "u"), "eng" for Latin words."""
    return tag if tag == "eng" else tag[:1]
