"""The LangGraph store keeps the ``BaseStore`` contract: the same calls made on LangGraph's own
``InMemoryStore`` (indexed with the same real embedder) and on ``MemtracksStore`` over a real
memory give the same items, keys, namespaces and values — memtracks adds one documented field,
``"memtracks"``, to a query's hits — and memtracks' own behaviour (facts that supersede, a
forgotten turn) comes with it. English and Chinese; SQLite and Postgres."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone

import pytest

pytest.importorskip("langgraph")
from langgraph.store.memory import InMemoryStore

from memtracks.errors import InvalidTurnError
from memtracks.integrations.langgraph import ADDED, MemtracksStore

pytestmark = pytest.mark.backends  # every test here runs on SQLite and on Postgres

T = "2024-05-01T09:00:00+00:00"
ITEMS = [
    (("alice",), "m1", {"text": "I live in Boston.", "timestamp": T, "channel": "web"}, None),
    (("alice",), "m2", {"text": "I adopted a cat named Pixel.", "timestamp": T, "channel": "app"}, None),
    (("alice", "bot", "prefs"), "p1", {"theme": "dark", "font": 14, "tags": ["a", "b"]}, None),
    (("alice",), "n1", {"text": "A private note about Boston taxes.", "timestamp": T}, False),
    (("bob",), "b1", {"text": "我住在成都，在腾讯上班。", "timestamp": "2024-05-01T09:00:00+08:00"}, None),
]


@pytest.fixture
def stores(memory, embedder):
    """LangGraph's InMemoryStore and memtracks' store, holding the same items."""
    reference = InMemoryStore(
        index={
            "dims": embedder.dim,
            "embed": lambda texts: embedder.embed_batch(list(texts)).tolist(),
            "fields": ["text"],
        }
    )
    ours = MemtracksStore(memory)
    for namespace, key, value, index in ITEMS:
        for store in (reference, ours):
            store.put(namespace, key, value, index=index)
    return reference, ours


def keys(items):
    return [(i.namespace, i.key) for i in items]


def plain(value):
    return {k: v for k, v in value.items() if k != ADDED}


# ---------------------------------------------------------------------- the same as InMemoryStore


def test_get_gives_back_what_was_put(stores):
    reference, ours = stores
    for namespace, key, value, _ in ITEMS:
        assert ours.get(namespace, key).value == reference.get(namespace, key).value == value
        assert ours.get(namespace, key).namespace == namespace and ours.get(namespace, key).key == key
    assert ours.get(("alice",), "p1") is None and reference.get(("alice",), "p1") is None  # another namespace
    assert ours.get(("carol",), "m1") is None and reference.get(("carol",), "m1") is None


@pytest.mark.parametrize(
    "prefix,conditions",
    [
        (("alice",), None),
        ((), None),
        (("alice", "bot"), None),
        (("bob",), None),
        (("alice",), {"channel": "web"}),
        (("alice",), {"text": "I live in Boston."}),
        (("alice", "bot"), {"font": {"$gte": 12}}),  # every item there has a font: InMemoryStore
        (("alice", "bot"), {"font": {"$lt": 12}}),  # raises TypeError on an item without one
        ((), {"channel": {"$ne": "web"}}),
        ((), {"tags": ["a", "b"]}),
        ((), {"text": "我住在成都，在腾讯上班。"}),
    ],
)
def test_searches_without_a_query_list_the_same_items(stores, prefix, conditions):
    reference, ours = stores
    expected = reference.search(prefix, filter=conditions, limit=50)
    found = ours.search(prefix, filter=conditions, limit=50)
    assert keys(found) == keys(expected)
    assert [i.value for i in found] == [i.value for i in expected]
    assert keys(ours.search(prefix, filter=conditions, limit=2, offset=1)) == keys(expected)[1:3]


@pytest.mark.parametrize(
    "prefix,question,first",
    [
        (("alice",), "Where do I live?", "m1"),
        (("alice",), "What is my cat called?", "m2"),
        ((), "我在哪里上班？", "b1"),
    ],
)
def test_a_query_ranks_what_was_put_and_returns_its_keys(stores, prefix, question, first):
    reference, ours = stores
    scored = [i for i in reference.search(prefix, query=question, limit=10) if i.score is not None]
    found = ours.search(prefix, query=question, limit=10)
    assert found and found[0].key == first == scored[0].key
    assert set(keys(found)) <= set(keys(scored))  # only indexed items, never an index=False one
    for hit in found:
        assert plain(hit.value) == reference.get(hit.namespace, hit.key).value
        assert hit.value[ADDED]["cards"] and hit.score > 0
        assert ours.get(hit.namespace, hit.key) is not None  # a hit's key can be read
    assert "n1" not in [i.key for i in found] and "p1" not in [i.key for i in found]


def test_an_order_filter_skips_items_without_the_field(stores):
    _, ours = stores  # as Postgres' JSONB reads it (InMemoryStore raises TypeError here)
    assert keys(ours.search((), filter={"font": {"$gte": 12}})) == [(("alice", "bot", "prefs"), "p1")]
    assert ours.search((), filter={"theme": {"$gt": 3}}) == []  # not a number: no match


def test_a_query_with_a_filter_keeps_only_matching_items(stores):
    reference, ours = stores
    expected = [i for i in reference.search(("alice",), query="Boston", filter={"channel": "web"}) if i.score]
    assert (
        keys(ours.search(("alice",), query="Boston", filter={"channel": "web"}))
        == keys(expected)
        == [(("alice",), "m1")]
    )
    assert ours.search(("alice",), query="Boston", filter={"channel": "none"}) == []


def test_list_namespaces_is_the_same(stores):
    reference, ours = stores
    for kwargs in ({}, {"prefix": ("alice",)}, {"suffix": ("prefs",)}, {"max_depth": 1}, {"prefix": ("alice", "*")}):
        assert ours.list_namespaces(**kwargs) == reference.list_namespaces(**kwargs), kwargs


def test_delete_and_put_again_are_the_same(stores):
    reference, ours = stores
    for store in (reference, ours):
        store.delete(("alice",), "m2")
        store.delete(("alice", "bot", "prefs"), "p1")
        store.put(("alice",), "m1", {"text": "I live in Denver.", "timestamp": T, "channel": "web"})
        store.delete(("alice",), "nothing-here")
    for namespace, key in ((("alice",), "m2"), (("alice", "bot", "prefs"), "p1")):
        assert ours.get(namespace, key) is None and reference.get(namespace, key) is None
    assert ours.get(("alice",), "m1").value == reference.get(("alice",), "m1").value
    assert keys(ours.search(("alice",))) == keys(reference.search(("alice",)))
    hits = ours.search(("alice",), query="Where do I live?")
    assert [h.key for h in hits] == ["m1"] and "Denver" in hits[0].value["text"]


def test_the_async_methods_are_the_same(stores):
    reference, ours = stores

    async def run(store):
        await store.aput(("carol",), "c1", {"text": "我的狗叫旺财。", "timestamp": T})
        got = await store.aget(("carol",), "c1")
        listed = await store.asearch(("carol",))
        await store.adelete(("carol",), "c1")
        return got.value, keys(listed), await store.aget(("carol",), "c1")

    assert asyncio.run(run(ours)) == asyncio.run(run(reference))


def test_batch_of_mixed_operations(stores):
    from langgraph.store.base import GetOp, PutOp, SearchOp

    reference, ours = stores
    ops = [
        PutOp(("dan",), "d1", {"text": "I drive a Honda Civic.", "timestamp": T}),
        GetOp(("dan",), "d1"),
        SearchOp(("dan",), None, 10, 0),
        PutOp(("dan",), "d2", {"note": "no text here"}),
        GetOp(("dan",), "d2"),
    ]
    expected, found = reference.batch(ops), ours.batch(ops)  # reads see the store before the puts
    assert found[1] is None and expected[1] is None and found[2] == expected[2] == []
    assert ours.get(("dan",), "d2").value == reference.get(("dan",), "d2").value == {"note": "no text here"}
    assert keys(ours.search(("dan",))) == keys(reference.search(("dan",))) == [(("dan",), "d1"), (("dan",), "d2")]


# ---------------------------------------------------------------------- what memtracks adds


def test_items_are_turns_whose_facts_supersede_and_are_forgotten_with_them(memory):
    store = MemtracksStore(memory)
    store.put(("alice",), "m1", {"text": "I live in Boston.", "timestamp": "2024-05-01T09:00:00+00:00"})
    store.put(("alice",), "m2", {"content": "I moved to Lisbon.", "timestamp": "2024-05-02T09:00:00+00:00"})
    store.put(("alice", "coach"), "c1", {"text": "我喜欢跑步。", "timestamp": "2024-05-02T09:00:00+08:00"})
    assert [f.value for f in memory.facts("alice", slot="lives_in")] == ["Lisbon"]
    assert [f.value for f in memory.facts("alice", agent_id="coach", slot="likes")] == ["跑步"]
    store.put(("alice",), "m2", {"text": "I moved to Porto.", "timestamp": "2024-05-02T09:00:00+00:00"})  # replaced
    assert [f.value for f in memory.facts("alice", slot="lives_in")] == ["Porto"]
    store.delete(("alice",), "m2")  # = forget: Boston holds again
    assert [f.value for f in memory.facts("alice", slot="lives_in")] == ["Boston"]
    assert memory.get("alice", "m2", kind="turn") is None


def test_unindexed_items_are_never_analysed(memory):
    store = MemtracksStore(memory)
    store.put(("alice",), "n1", {"text": "I live in Boston."}, index=False)
    store.put(("alice",), "p1", {"theme": "dark"})
    assert memory.facts("alice") == [] and memory.events("alice") == []
    assert store.get(("alice",), "n1").value == {"text": "I live in Boston."}
    assert store.search(("alice",), query="Where do I live?") == []
    store.put(("alice",), "n1", {"text": "I live in Boston."})  # now indexed: a turn
    assert [f.value for f in memory.facts("alice")] == ["Boston"]
    store.put(("alice",), "n1", {"text": "I live in Boston."}, index=False)  # and no longer
    assert memory.facts("alice") == [] and store.get(("alice",), "n1") is not None


def test_index_names_the_fields_to_remember(memory):
    store = MemtracksStore(memory)
    store.put(("alice",), "k1", {"summary": "我搬到了杭州。", "mood": "happy"}, index=["summary"])
    assert [f.value for f in memory.facts("alice", slot="lives_in")] == ["杭州"]
    assert store.search(("alice",), query="我住在哪里？")[0].key == "k1"


def test_forgetting_everything_takes_the_plain_items_too(memory):
    store = MemtracksStore(memory)
    store.put(("alice",), "m1", {"text": "I live in Boston.", "timestamp": T})
    store.put(("alice",), "p1", {"theme": "dark"})
    store.put(("bob",), "p1", {"theme": "light"})
    report = memory.forget("alice", everything=True)
    assert report.turns == 1 and report.items == 1  # the turn took its item; p1 was an item alone
    assert store.get(("alice",), "m1") is None and store.get(("alice",), "p1") is None
    assert store.get(("bob",), "p1").value == {"theme": "light"}


def test_turns_written_by_memtracks_are_items_too(memory):
    memory.write(
        "I work at Spotify.", user_id="alice", turn_id="w1", timestamp=datetime(2024, 5, 1, tzinfo=timezone.utc)
    )
    store = MemtracksStore(memory)
    assert store.get(("alice",), "w1").value["text"] == "I work at Spotify."
    assert [i.key for i in store.search(("alice",))] == ["w1"]
    assert store.search(("alice",), query="Where do I work?")[0].key == "w1"
    assert ("alice",) in store.list_namespaces()


def test_bad_values_and_filters_are_clear_errors(memory):
    store = MemtracksStore(memory)
    with pytest.raises(InvalidTurnError, match="JSON"):
        store.put(("alice",), "x", {"when": datetime(2024, 1, 1)})
    assert store.get(("alice",), "x") is None  # nothing half-written
    store.put(("alice",), "y", {"n": 1})
    with pytest.raises(InvalidTurnError, match=r"operator '\$regex'"):
        store.search(("alice",), filter={"n": {"$regex": "x"}})


def test_export_and_import_carry_the_items(memory, make_memory, tmp_path):
    store = MemtracksStore(memory)
    store.put(("alice",), "m1", {"text": "I live in Boston.", "timestamp": T, "channel": "web"})
    store.put(("alice",), "p1", {"theme": "dark", "语言": "中文"})
    store.put(("alice",), "n1", {"text": "not searched"}, index=False)
    memory.export(tmp_path / "alice.jsonl", user_id="alice")
    other = make_memory()
    report = other.import_(tmp_path / "alice.jsonl")
    assert report.counts["item"] == 3
    copy = MemtracksStore(other)
    for key in ("m1", "p1", "n1"):
        assert copy.get(("alice",), key).value == store.get(("alice",), key).value
        assert copy.get(("alice",), key).created_at == store.get(("alice",), key).created_at
    assert keys(copy.search(("alice",))) == keys(store.search(("alice",)))
    assert [h.key for h in copy.search(("alice",), query="Where do I live?")] == ["m1"]
