"""The event chain read from the store in sets: a retrieve reads the links of all its best
hits in a few queries, and answers exactly as when it read them one event at a time."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memtracks import Turn
from memtracks.config import MemoryConfig, TierConfig
from memtracks.storage.chain import CHUNK, StoredChain
from memtracks.tracks.temporal import answers, neighbourhoods, neighbours

pytestmark = pytest.mark.backends

T0 = datetime(2024, 1, 8, 9, tzinfo=timezone.utc)

# Four sessions, two months apart, that keep coming back to the same pet, people and places
SESSIONS = [
    [
        "I adopted a puppy named Biscuit from the shelter on Elm Street.",
        "Oh how lovely! What breed is Biscuit?",
        "He's a beagle mix, and he already chewed through my running shoes.",
        "My sister Dana is coming over on Saturday to meet him.",
        "我上周开始在社区中心学陶艺。",
        "老师说我拉坯的手法进步很快。",
    ],
    [
        "Biscuit finished his puppy training class last week.",
        "Did Dana come to his graduation?",
        "Yes, Dana brought him a squeaky duck as a present.",
        "We're planning a hiking trip to Lake Tahoe in June.",
        "陶艺课的作品昨天烧好了，是一个蓝色的碗。",
        "我把碗送给了我妈妈。",
    ],
    [
        "The vet says Biscuit is allergic to chicken.",
        "What are you feeding him now?",
        "Salmon kibble, and he loves it.",
        "Dana moved to Seattle for her new job at the aquarium.",
        "我們在太浩湖露營了三天。",
        "晚上的星星非常漂亮。",
    ],
    [
        "Biscuit turned one today, we had a little party.",
        "Did you invite anyone?",
        "Dana flew in from Seattle and the neighbours came too.",
        "I'm thinking of signing up for a second pottery course.",
        "陶艺中心下个月有一个新的釉料课程。",
        "我打算报名参加。",
    ],
]

QUESTIONS = [
    "What breed is Biscuit?",
    "What is Biscuit allergic to?",
    "What did Dana give Biscuit?",
    "Where does Dana live now?",
    "Where did we go hiking?",
    "When did Biscuit turn one?",
    "What does Biscuit eat now?",
    "陶艺课做了什么作品？",
    "碗送给了谁？",
    "我們在太浩湖待了幾天？",
    "我打算报名什么课程？",
]


class OneEventAtATime(StoredChain):
    """The chain as it was read before: the links of one event per query pair."""

    def load(self, nodes):
        for node in list(nodes):
            super().load([node])


class CountingChain(StoredChain):
    queries = 0

    def load(self, nodes):
        before = len(self._out)
        super().load(nodes)
        added = len(self._out) - before
        CountingChain.queries += -(-added // CHUNK)  # both ways in one query


@pytest.fixture
def conversation(make_memory):
    def build(**config):
        mem = make_memory(config=MemoryConfig(**config))
        mem.write_many(
            [
                Turn(
                    text,
                    user_id="u1",
                    session_id=f"s{s}",
                    turn_id=f"s{s}t{i}",
                    speaker="assistant" if text.endswith("?") else "user",
                    timestamp=T0 + timedelta(days=60 * s, minutes=i),
                )
                for s, turns in enumerate(SESSIONS)
                for i, text in enumerate(turns)
            ]
        )
        return mem

    return build


def _cards(mem, chain_class, now):
    mem.reader.chain = lambda scope: chain_class(mem.store, scope)
    out = []
    for question in QUESTIONS:
        recall = mem.retrieve(question, user_id="u1", now=now, top_n=8)
        out.append([(c.ref, c.text, round(c.score, 9), c.explain) for c in recall.cards])
    return out


@pytest.mark.parametrize("tiers", [False, True], ids=["tiers off", "tiers on"])
def test_cards_are_the_same_as_reading_one_event_at_a_time(conversation, tiers):
    mem = conversation(tiers=TierConfig(enabled=tiers))
    now = T0 + timedelta(days=190)
    batched = _cards(mem, StoredChain, now)
    assert batched == _cards(mem, OneEventAtATime, now)
    assert any("temporal.chain" in card[3] for cards in batched for card in cards)  # the walk did add hits


def test_a_retrieve_reads_the_chain_in_a_few_queries(conversation):
    mem = conversation()
    mem.reader.chain = lambda scope: CountingChain(mem.store, scope)
    for question in QUESTIONS:
        CountingChain.queries = 0
        mem.retrieve(question, user_id="u1", now=T0 + timedelta(days=190))
        hops = mem.config.retrieval.chain_hops
        assert 0 < CountingChain.queries <= hops + 1, question


def test_batched_walks_match_the_whole_graph(conversation):
    mem = conversation()
    graph, stored = mem.event_chain("u1"), StoredChain(mem.store, "u1")
    ids = [e.id for e in mem.events("u1")] + [10**9]  # and one event the chain does not know
    for hops in (1, 2, 3):
        walked = neighbourhoods(StoredChain(mem.store, "u1"), ids, hops)
        assert walked == {i: neighbours(graph, i, hops) for i in ids}
        assert walked == neighbourhoods(graph, ids, hops)
    stored.load(ids)
    for i in ids:
        assert (i in stored) == (i in graph)
        assert answers(stored, i) == answers(graph, i)
        assert list(stored.predecessors(i)) == sorted(set(graph.predecessors(i))) if i in graph else True
    assert any(neighbours(graph, i, 1) for i in ids)


def test_loading_more_events_than_one_query_holds(conversation):
    mem = conversation()
    graph = mem.event_chain("u1")
    ids = [e.id for e in mem.events("u1")]
    many = ids + list(range(10**6, 10**6 + CHUNK + 7))  # spans two chunks
    stored = StoredChain(mem.store, "u1")
    stored.load(many)
    assert {i: set(stored.successors(i)) for i in ids} == {i: set(graph.successors(i)) for i in ids}
    assert not any(i in stored for i in many[len(ids) :])


def test_walking_back_is_an_index_look_up_not_a_scan(tmp_path, toolkit, embedder):
    """SQLite preferred scanning a user's links through the primary key (it covers ``src``) to
    an index on ``dst`` alone; the reverse index carries ``src`` so the look-up uses it."""
    from memtracks import Memory

    mem = Memory(tmp_path / "m.db", toolkit=toolkit, embedder=embedder)
    mem.write(Turn("I adopted a puppy named Biscuit.", user_id="u1", timestamp=T0))
    mem.write(Turn("Biscuit loves the park.", user_id="u1", timestamp=T0 + timedelta(days=1)))
    sql = (  # as StoredChain.load reads both ways
        "SELECT 1, src, dst, kind, key FROM event_links WHERE user_id = ? AND src IN (?, ?) "
        "UNION ALL SELECT 0, dst, src, '', '' FROM event_links WHERE user_id = ? AND dst IN (?, ?) "
        "ORDER BY 1, 2, 3, 4, 5"
    )
    plan = [str(r[-1]) for r in mem.store._rows(f"EXPLAIN QUERY PLAN {sql}", ("u1", 1, 2, "u1", 1, 2))]
    reads = [step for step in plan if "event_links" in step]
    assert len(reads) == 2 and all("COVERING INDEX" in step for step in reads), plan
    assert any("src=?" in step for step in reads) and any("dst=?" in step for step in reads), plan
    mem.close()
