"""How a question's time and form shape retrieval: an approximate time ("about two weeks ago",
大概两周前, 大約兩週前) reaches past its day, the nearer the better, by a margin that grows with
how far back it is; the words of a count ("how many", 一共) are not searched as words; a third
person the question names is searched by name. Real toolkit, real embedder,
real SQLite."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memtracks import Memory, Turn
from memtracks.retrieval.lexical import tokenize

NOW = datetime(2024, 6, 28, 18, tzinfo=timezone.utc)


def _write(mem: Memory, user: str, said: list[tuple[int, str]]) -> None:
    """``said``: (days before NOW, text), each its own session."""
    for n, (days, text) in enumerate(said):
        mem.write(
            text,
            user_id=user,
            session_id=f"s{n}",
            turn_id=f"t{n}",
            timestamp=NOW - timedelta(days=days, hours=2),
        )


def _closeness(mem: Memory, question: str, user: str, now: datetime = NOW) -> dict[str, float]:
    """How close to the question's time each turn is, as the temporal retriever weighs it."""
    recall = mem.retrieve(question, user_id=user, now=now, top_n=20, k={"fact": 0, "temporal": 20})
    out = {}
    for c in recall.cards:  # a thread card's parts keep their own breakdown
        out.update({t: p.explain.get("temporal.time_closeness", 0.0) for p in c.parts for t in p.source_turn_ids})
        out.update({t: c.explain.get("temporal.time_closeness", 0.0) for t in c.source_turn_ids if t not in out})
    return out


# Said 14, 18, 23 and 40 days before the question; the question asks about "two weeks ago".
HIKES = {
    "en": [
        (14, "I went hiking up Mount Tam with my neighbour."),
        (18, "I went hiking along the coast trail with my brother."),
        (23, "I went hiking in the redwoods with a friend from work."),
        (40, "I went hiking near the lake with my cousin."),
    ],
    "zh": [
        (14, "我跟邻居去爬了香山。"),
        (18, "我跟我哥去海边的步道徒步了。"),
        (23, "我跟一个同事去森林公园徒步了。"),
        (40, "我跟表妹去湖边徒步了。"),
    ],
    "zh-hant": [
        (14, "我跟鄰居去爬了陽明山。"),
        (18, "我跟我哥去海邊的步道健行了。"),
        (23, "我跟一個同事去森林公園健行了。"),
        (40, "我跟表妹去湖邊健行了。"),
    ],
}


@pytest.fixture(scope="module")
def hikes(toolkit, embedder):
    mem = Memory(toolkit=toolkit, embedder=embedder)
    for user, said in HIKES.items():
        _write(mem, user, said)
    yield mem
    mem.close()


@pytest.mark.parametrize(
    "user,question",
    [
        ("en", "Where did I go hiking about two weeks ago?"),
        ("en", "Who did I go hiking with a couple of weeks ago?"),
        ("zh", "我大概两周前去哪里徒步了？"),
        ("zh", "我两个星期前跟谁去徒步的？"),
        ("zh-hant", "我大約兩週前去哪裡健行了？"),
    ],
)
def test_an_approximate_time_reaches_past_its_day_the_nearer_the_more(hikes, user, question):
    """ "About two weeks ago" is meant loosely: a hike 18 days back still gains part of the
    time bonus, less than the one 14 days back, the one 23 days back less still; 40 days back is outside its reach."""
    close = _closeness(hikes, question, user)
    assert close["t0"] == 1.0 > close["t1"] > 0.0
    assert close.get("t2", 0.0) < close["t1"]
    assert close.get("t3", 0.0) == 0.0


@pytest.mark.parametrize(
    "user,question",
    [
        ("en", "Where did I go hiking two days ago?"),
        ("zh", "我两天前去哪里徒步了？"),
        ("zh-hant", "我兩天前去哪裡健行了？"),
    ],
)
def test_a_near_approximate_time_reaches_little(toolkit, embedder, user, question):
    """The margin grows with the distance: "two days ago" does not reach a week back."""
    said = {
        "en": [(2, "I went hiking up Mount Tam."), (7, "I went hiking along the coast trail.")],
        "zh": [(2, "我去爬了香山。"), (7, "我去海边的步道徒步了。")],
        "zh-hant": [(2, "我去爬了陽明山。"), (7, "我去海邊的步道健行了。")],
    }[user]
    with Memory(toolkit=toolkit, embedder=embedder) as mem:
        _write(mem, user, said)
        close = _closeness(mem, question, user)
    assert close["t0"] == 1.0 and close.get("t1", 0.0) == 0.0


@pytest.mark.parametrize(
    "user,question",
    [
        ("en", "What did I do the week before last?"),
        ("zh", "我上上周做了什么？"),
        ("zh-hant", "我上上週做了什麼？"),
    ],
)
def test_a_named_period_reaches_a_little_past_its_edges(toolkit, embedder, user, question):
    """A named week reaches a share of its length past its edges: the day after it gains a
    little, the week after it nothing."""
    now = datetime(2024, 6, 26, 18, tzinfo=timezone.utc)  # a Wednesday; the week before last: June 10-16
    said = {
        "en": ["I repainted the fence.", "I repaired the old bike.", "I planted tomatoes."],
        "zh": ["我把篱笆重新刷了漆。", "我修好了那辆旧自行车。", "我种了西红柿。"],
        "zh-hant": ["我把籬笆重新刷了漆。", "我修好了那輛舊自行車。", "我種了番茄。"],
    }[user]
    with Memory(toolkit=toolkit, embedder=embedder) as mem:
        for n, (day, text) in enumerate(zip((12, 17, 21), said, strict=True)):
            at = datetime(2024, 6, day, 10, tzinfo=timezone.utc)
            mem.write(text, user_id=user, session_id=f"s{n}", turn_id=f"t{n}", timestamp=at)
        close = _closeness(mem, question, user, now)
    assert close["t0"] == 1.0 > close["t1"] > 0.0  # June 12 inside; June 17, a day past its end
    assert close.get("t2", 0.0) == 0.0  # June 21: the next week


@pytest.mark.parametrize(
    "question,count_words",
    [
        ("How many books did I read last month?", "how many"),
        ("How much have I spent on plants in total?", "how much total"),
        ("What did the three trips cost altogether?", "altogether"),
        ("我上个月一共看了几本书？", "一共"),
        ("這幾次旅行總共花了多少錢？", "總共"),
        ("我这几次体检加起来花了多少钱？", "加起来"),
    ],
)
def test_count_words_are_not_search_words(memory, question, count_words):
    """ "How many" is the form of the question, not its topic: as a word it would find every
    turn that says "many"."""
    query = memory.reader.analyze(question, user_id="u1", now=NOW)
    assert query.aggregate
    assert not set(tokenize(count_words)) & set(query.terms)
    assert query.terms  # the topic stays


# A user tells of relatives by name; their names are not the names of anyone who speaks.
RELATIVES = {
    "en": [
        "I'm planning a trip to visit my parents soon, maybe stopping by my grandma's on the way.",
        "My sister-in-law Rachel is doing great with the twins, they're growing up so fast.",
        "My parents want us all home for the holidays this year.",
        "My cousin Alex adopted a baby girl in January, it's been life-changing for her.",
        "Being a parent must be exhausting, my parents always said so.",
        "My cousin Alex and I went fishing at the lake last summer.",
        "Rachel sent me photos from the beach.",
    ],
    "zh": [
        "我打算最近回去看看爸妈，顺路去一趟外婆家。",
        "我嫂子林芳带着双胞胎，一切都挺好的，孩子长得真快。",
        "爸妈希望今年过年大家都回家。",
        "我表姐王丽一月份领养了一个女儿，生活完全变了。",
        "当父母一定很累，我爸妈总这么说。",
        "去年夏天我和表姐王丽去湖边钓鱼了。",
        "林芳给我发了海边的照片。",
    ],
}


@pytest.mark.parametrize(
    "user,question,wanted",
    [
        ("en", "Who became a parent first, Rachel or Alex?", {"t1", "t3"}),
        ("zh", "林芳和王丽谁先当上父母的？", {"t1", "t3"}),
        ("zh", "林芳和王麗誰先當上父母的？", {"t1", "t3"}),
    ],
)
def test_a_third_person_named_in_the_question_is_searched_by_name(toolkit, embedder, user, question, wanted):
    """Names of people the user talks about are topics: the turns that name them answer,
    not the turns about parents in general."""
    with Memory(toolkit=toolkit, embedder=embedder) as mem:
        for n, text in enumerate(RELATIVES[user]):
            mem.write(
                text,
                user_id=user,
                session_id=f"s{n}",
                turn_id=f"t{n}",
                timestamp=NOW - timedelta(days=10 - n),
            )
        recall = mem.retrieve(question, user_id=user, now=NOW, top_n=3)
    assert wanted <= {t for c in recall.cards for t in c.source_turn_ids}


@pytest.mark.parametrize(
    "question,said",
    [
        ("How much have I spent on my bike since the start of the year?", "I paid $120 for a new bike chain today."),
        ("今年以来我在自行车上一共花了多少钱？", "我今天花了120块换了新的自行车链条。"),
        ("今年以來我在自行車上一共花了多少錢？", "我今天花了120塊換了新的自行車鏈條。"),
    ],
)
def test_a_wide_window_keeps_its_latest_events(toolkit, embedder, question, said):
    """A window holding more events than the window scan returns still gives its latest ones
    the time bonus (the scan lists the earliest first)."""
    start = datetime(2024, 1, 2, 9, tzinfo=timezone.utc)
    topics = ["a novel about sailors", "the rain on the roof", "my sourdough starter", "a chess opening"]
    filler = [f"Day {n}: I spent the evening on {topics[n % 4]}, part {n}." for n in range(320)]
    with Memory(toolkit=toolkit, embedder=embedder) as mem:
        mem.write_many(
            Turn(text, user_id="u", session_id=f"f{n // 10}", timestamp=start + timedelta(hours=9 * n))
            for n, text in enumerate(filler)
        )
        mem.write(said, user_id="u", session_id="bike", turn_id="bike", timestamp=NOW - timedelta(days=1))
        recall = mem.retrieve(question, user_id="u", now=NOW, top_n=5, k={"fact": 0})
    card = next(c for c in recall.cards if "bike" in c.source_turn_ids)
    assert card.explain["temporal.time_closeness"] == 1.0


@pytest.mark.parametrize(
    ("said", "question"),
    [
        ("I moved to Hangzhou.", "What did I do two weeks ago?"),
        ("我搬到杭州了。", "我們下週三去台北"),
        ("我搬到杭州了。", "我两周前做了什么？"),
    ],
)
@pytest.mark.parametrize(
    "when",
    [datetime.max.replace(tzinfo=timezone.utc), datetime.min.replace(tzinfo=timezone.utc)],
    ids=["last moment", "first moment"],
)
def test_a_time_window_near_turns_said_at_the_calendars_ends_is_no_error(memory, said, question, when):
    """A turn said at the last representable moment is stored with an epoch that, as a float,
    rounds into year 10000; a window's reach past a moment near either end of the calendar
    would overflow. Neither is an error: the question is answered."""
    memory.write(said, user_id="u1", turn_id="edge", timestamp=when)
    memory.write(said, user_id="u1", turn_id="now", timestamp=NOW - timedelta(days=14))
    for now in (NOW, when):
        recall = memory.retrieve(question, user_id="u1", now=now, top_n=5)
        assert recall.cards, (question, now)


@pytest.mark.parametrize("delta", [timedelta(days=3), -timedelta(days=3)])
def test_moments_shift_and_read_back_inside_the_calendar(delta):
    from memtracks.moments import from_epoch, shifted

    last, first = datetime.max.replace(tzinfo=timezone.utc), datetime.min.replace(tzinfo=timezone.utc)
    assert shifted(last, timedelta(days=3)) == last and shifted(first, -timedelta(days=3)) == first
    assert shifted(NOW, delta) == NOW + delta
    assert from_epoch(last.timestamp()) == last and from_epoch(first.timestamp()) == first
    assert from_epoch(NOW.timestamp()) == NOW
