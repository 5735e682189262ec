"""The latest word leads: for a question about how things are now, the newest of several
memories about the same thing comes first.

"I work at a bakery downtown." and, a month later, "Big news, my new employer is Spotify!"
both answer "Where do I work?"; the older one often scores a little higher (it shares the
question's words), and an agent that reads the first card answers from the past. So when a
question asks about now (:attr:`Query.about_now`: the present tense, "still", 现在, 还…吗 —
not "before", "when", a count or a fixed time), the first ``latest_window`` ranked memories
are grouped by what they are about, and within each group the newest statement takes the
group's best place; the older ones follow in the places the group held, as earlier context.

Two memories are about the same thing when they come from the same person, one of them at
least is a fact of a slot the question asks about ("What car do I drive?": car), and

- both are facts of that slot, of the same value or of a single-valued slot, or facts of two
  single-valued slots the question asks about both ("Am I married?": partner, relationship);
- the other is a newer turn that names the fact's value ("car: Honda Civic", then "Sold the
  Civic last weekend"); for a slot of many values, the value the question names ("Am I
  allergic to peanuts?": "allergic to: peanuts", then "I'm not allergic to peanuts anymore"),
  or any value when the question names none of the values found ("Do I still have a dog?":
  "pets: Mochi (corgi)", then "Mochi didn't make it"), or a newer turn that ended another
  fact of a one-valued slot the question asks about, said with the fact ("job: 游戏美术" and
  "employer: 网易" from one turn, then 从网易出来了，现在自己接外包); or
- the fact is of a single-valued slot and the other an older turn that speaks of that slot
  by the slot's ``about`` words in ``rules/slots.yaml`` ("employer: Spotify" and "I work at a
  bakery downtown").

A newer fact also leads the turn that stated the fact it replaced or put right ("My dog's
name is Rufus", then "sorry, Rufio! not Rufus": "pets: Rufio (dog)" leads).

Two turns are ordered by this rule only when the newer one called off what the older one
planned (the writer notes, on the cancelled happening, the turn that did: "We're flying to
Oslo next Friday", then "we scrapped the Oslo flights"), or ended a fact the older one stated
(the fact ended when the newer one was said, and the newer one names its value — "My rabbit
Clover chews every cable", then "We found Clover a new home" — or speaks of its one-valued
slot the question asks about: "I'm vegetarian", then "Started eating meat again").
Otherwise, that both speak of work, or are close in meaning, does not tell that the newer one
answers (on LoCoMo and zh_chat, ordering them by meaning put the newest of several turns
about a topic first and lost the one that held the answer).

A memory joins a group only when it scores at least ``latest_share`` of the best memory of
its own track (facts and turns score on scales of their own): the rule reorders what the
question found, it never promotes what it barely found — save the turn that ended a fact a
turn of the group stated ("I work at 誠品", then "被資遣了，公司說要縮編"): the writer's record,
not the question's words, ties the two. A plan not yet begun (a fact that
holds from later, a turn about a later time) keeps its place: it is no word on how things are. Scores
move with the places (the newest takes the best score of the group), so every later step —
dedup, session diversity, threads, the score floor — sees the new order. Conclusions
(inferences) keep their places.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from functools import cache
from typing import Protocol, TypeVar

from memtracks.config import FusionConfig
from memtracks.pipeline.text import names_value, value_key
from memtracks.records import Fact
from memtracks.retrieval.hits import Hit
from memtracks.retrieval.query import Query
from memtracks.tracks import track_of


class Scored(Protocol):
    """A ranked memory (fusion's ``Ranked``): its hit, its score and the score's breakdown."""

    hit: Hit
    score: float
    explain: dict[str, float]


Ranked = TypeVar("Ranked", bound=Scored)


def latest_first(
    ranked: list[Ranked], query: Query, config: FusionConfig, ended: Callable[[], Sequence[Fact]] | None = None
) -> list[Ranked]:
    """``ranked`` (best first) with the newest memory of each group in the group's best place.

    ``ended``: reads the facts a later turn ended, replaced or put right (the turn that stated
    one and the turn that ended it are about the same thing; so are the turn and the fact that
    took its place); called at most once, and only when it is needed."""
    if not query.about_now or config.latest_window < 2:
        return ranked
    head, tail = ranked[: config.latest_window], ranked[config.latest_window :]
    best: dict[str, float] = {}
    for r in head:
        best[r.hit.track] = max(best.get(r.hit.track, 0.0), r.score)
    # a turn that called off a plan found here is a word on how things are, whatever time it
    # speaks of ("postponed to spring, so we scrapped the Oslo flights")
    changers = {t for r in head for t in track_of(r.hit.record).called_off_by(r.hit.record)}
    found = [
        r.score >= config.latest_share * best[r.hit.track]
        and (not _ahead(r, query) or any(t in changers for t in track_of(r.hit.record).turn_ids(r.hit.record)))
        for r in head
    ]
    named = _named_slots(head, query)
    ended_facts = cache(ended) if ended is not None else tuple  # read once, when first needed

    placed: set[int] = set()
    for i, leader in enumerate(head):
        if i in placed or not found[i] or _person(leader) is None:
            continue
        group = [i]
        for j in range(i + 1, len(head)):
            if j in placed:
                continue
            if found[j]:
                if any(_same_thing(head[k], head[j], query, named, ended_facts) for k in group):
                    group.append(j)
            elif any(_ended_by(head[k], head[j], query, ended_facts) for k in group):
                group.append(j)  # the turn that ended what one of the group stated: found, however faintly
        if len(group) < 2:
            continue
        placed.update(group)
        # said at one moment, the fact leads its turn: it is what the turn said, read
        # said last, then (a fact told again in the same turn) the one that began to hold last
        newest = sorted(group, key=lambda k: (-_said(head[k]).timestamp(), _held(head[k]) is None, -_began(head[k]), k))
        if newest == group:
            continue
        scores = [head[k].score for k in group]
        moved = [head[k] for k in newest]
        for place, item, score in zip(group, moved, scores, strict=True):
            if item.score != score:
                item.explain["latest"] = score / item.score if item.score else 1.0
                item.score = score
            head[place] = item
    return head + tail


def _same_thing(
    a: Scored, b: Scored, query: Query, named: frozenset[str], ended: Callable[[], Sequence[Fact]] = tuple
) -> bool:
    x, y = a.hit.record, b.hit.record
    tx, ty = track_of(x), track_of(y)
    if not _one_person(x, y):
        return False
    held_x, held_y = tx.holds(x), ty.holds(y)
    if held_x and held_y:
        (slot, value), (other_slot, other_value) = held_x, held_y
        same_value = value_key(value) == value_key(other_value)
        if slot != other_slot:
            # two one-valued slots the question asks about both ("Am I married?": partner and
            # relationship): the newer word on either is the word on how things are now
            return slot in _single(query) and other_slot in _single(query)
        return slot in query.slots and (same_value or slot in _single(query))
    if held_x:
        fact, held, turn, words = x, held_x, y, ty.said(y)
    elif held_y:
        fact, held, turn, words = y, held_y, x, tx.said(x)
    else:
        # two turns: what each says is not known well enough to order them, unless the newer
        # one called off what the older one planned ("scrapped the Oslo flights") or ended a
        # fact it stated ("My rabbit Clover…", then "We found Clover a new home")
        return _changes(x, y) or _changes(y, x) or _ends(x, y, ended, query) or _ends(y, x, ended, query)
    slot, value = held
    if words is None or slot not in query.slots:
        return False  # no turn, or about something the question does not ask
    if track_of(turn).said_at(turn) > track_of(fact).said_at(fact):
        # "Sold the Civic" after "car: Honda Civic"; of a slot of many values ("likes"), the
        # value the question names ("Do I like sushi?": "I've gone off sushi lately"), or any
        # when it names none ("Do I still have a dog?": "Mochi didn't make it")
        asked = slot in _single(query) or names_value(query.text, value) or slot not in named
        return (asked and names_value(words, value)) or _ended_beside(fact, turn, ended, query)
    # a newer fact on a single-valued slot leads the older turns that speak of that slot
    # ("employer: Spotify" before "I work at a bakery downtown"); any newer fact leads the turn
    # that stated the one it replaced or put right ("My dog's name is Rufus", then "sorry,
    # Rufio! not Rufus": "pets: Rufio (dog)")
    return (slot in _single(query) and _speaks_of(words, slot, query)) or _took_the_place(fact, turn, ended)


def _one_person(x: object, y: object) -> bool:
    """Are two memories the word of one person (a fact's subject, a turn's speaker)?"""
    person_x, person_y = track_of(x).person(x), track_of(y).person(y)
    return person_x is not None and person_y is not None and person_x.casefold() == person_y.casefold()


def _took_the_place(fact: object, turn: object, ended: Callable[[], Sequence[Fact]]) -> bool:
    """Did ``fact`` replace or correct a fact that ``turn`` stated?"""
    fact_id = getattr(fact, "id", None)
    if fact_id is None:
        return False
    sources = track_of(turn).turn_ids(turn)
    return any(f.superseded_by == fact_id and any(t in f.source_turn_ids for t in sources) for f in ended())


def _ended_beside(fact: object, turn: object, ended: Callable[[], Sequence[Fact]], query: Query) -> bool:
    """Did ``turn`` end another fact of a one-valued slot the question asks about, said in the
    same turn as ``fact`` ("我在网易做游戏美术", then "从网易出来了，现在自己接外包": what the
    first said of the work is the older word)?"""
    sources = getattr(fact, "source_turn_ids", ())
    return any(f.slot in _single(query) for f in _ended_when_said(turn, sources, ended, query))


def _ended_by(a: Scored, b: Scored, query: Query, ended: Callable[[], Sequence[Fact]]) -> bool:
    """Is ``b`` the later turn, by the same person, that ended a fact the turn ``a`` stated
    ("I work at 誠品", then "被資遣了")? The writer's record ties the two, so ``b`` joins
    ``a``'s group even when it barely shares the question's words."""
    x, y = a.hit.record, b.hit.record
    tx, ty = track_of(x), track_of(y)
    if tx.holds(x) is not None or ty.holds(y) is not None or _ahead(b, query):
        return False
    return _one_person(x, y) and _ends(x, y, ended, query)


def _changes(old: object, new: object) -> bool:
    """Did the turn ``new`` call off what the turn ``old`` planned?"""
    changed = track_of(old).called_off_by(old)
    return bool(changed) and any(t in changed for t in track_of(new).turn_ids(new))


def _ends(old: object, new: object, ended: Callable[[], Sequence[Fact]], query: Query) -> bool:
    """Did the turn ``new`` end a fact that the turn ``old`` stated? The fact ended when
    ``new`` was said, and ``new`` names its value or, for a one-valued slot the question asks
    about, speaks of that slot ("I've been vegetarian for years", then "Started eating meat
    again"; 我吃素五年了, then 最近开荤了)."""
    if track_of(old).said(old) is None or track_of(new).said_at(new) <= track_of(old).said_at(old):
        return False
    return bool(_ended_when_said(new, track_of(old).turn_ids(old), ended, query))


def _ended_when_said(
    turn: object, sources: Sequence[str], ended: Callable[[], Sequence[Fact]], query: Query
) -> list[Fact]:
    """The facts stated in one of the turns ``sources`` that ``turn`` ended when it was said,
    naming the value or, for a one-valued slot the question asks about, speaking of its slot."""
    words = track_of(turn).said(turn)
    if words is None or not sources:
        return []
    when = track_of(turn).said_at(turn)
    return [
        f
        for f in ended()
        if f.superseded_at == when
        and any(t in f.source_turn_ids for t in sources)
        and (names_value(words, f.value) or _speaks_of(words, f.slot, query))
    ]


def _held(r: Scored) -> tuple[str, str] | None:
    return track_of(r.hit.record).holds(r.hit.record)


def _named_slots(head: Sequence[Scored], query: Query) -> frozenset[str]:
    """The slots of many values one of whose values, among the facts found, the question names."""
    held = [h for h in map(_held, head) if h is not None]
    return frozenset(slot for slot, value in held if names_value(query.text, value))


def _ahead(r: Scored, query: Query) -> bool:
    """A plan not yet begun (a fact that holds from later, a turn about a later time): not the
    latest word on how things are, so it keeps its place — unless a later turn called it off,
    which then leads it."""
    track = track_of(r.hit.record)
    return track.ahead(r.hit.record, query.now) and not track.called_off_by(r.hit.record)


def _person(r: Scored) -> str | None:
    """Whose word it is: a fact's subject, a turn's speaker; None for a conclusion."""
    return track_of(r.hit.record).person(r.hit.record)


def _said(r: Scored) -> datetime:
    return track_of(r.hit.record).said_at(r.hit.record)


def _began(r: Scored) -> float:
    """When a fact began to hold (a turn: the time it is about)."""
    record = r.hit.record
    began = getattr(record, "valid_from", None) or track_of(record).interval(record)[0]
    return began.timestamp()


def _single(query: Query) -> Sequence[str]:
    """The single-valued slots the question asks about."""
    return [slot for slot, _ in query.topics]


def _speaks_of(text: str, slot: str, query: Query) -> bool:
    return any(name == slot and pattern.search(text) for name, pattern in query.topics)
