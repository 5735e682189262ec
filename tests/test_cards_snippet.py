"""A long turn's card: the sentences it keeps for a question, with the real embedder and NLP.

The shared-words cut (the dated sentence, those sharing words with the question) stays; the
room it leaves in the card's budget goes to the statements next to those sharing words (the
default) or to those closest to the question in meaning, since an answer often shares no
word with its question.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone

import pytest

from memtracks import Turn
from memtracks.config import FusionConfig, MemoryConfig
from memtracks.pipeline.timenorm import normalize_time
from memtracks.retrieval.cards import SNIPPET_TOKENS, Relevance, SentenceMeaning, count_tokens, room_sentences, snippet
from memtracks.retrieval.lexical import tokenize

CST = timezone(timedelta(hours=8))
SAID = datetime(2024, 1, 11, 10, tzinfo=CST)  # a Thursday: "last weekend" / 上周六 is 2024-01-06

EN = (
    "I've been comparing apartments on a few listing sites, but nothing fits our budget yet. "
    "We moved into a temporary flat last weekend. "
    "By the way, the asylum office took forever with my application. "
    "Over a year of uncertainty was really tough on all of us. "
    "At least the kids like their new school and the neighbours are friendly. "
    "Anyway, do you know any good furniture stores near the river?"
)
ZH = (
    "这段日子工作特别忙，孩子们也放假在家，每天都像打仗一样。"
    "上周六我们去湖边的小木屋住了两天。"
    "整整十四个月提心吊胆，总算熬过去了。"
    "小狗一路上追着野鸭子跑。"
    "对了，你知道河边有什么好的家具店吗？"
)
CASES = [
    # (turn, lang, question, the answer: it shares no word with the question, the dated sentence's date)
    (
        EN,
        "en",
        "How long did I wait for the decision on my asylum application?",
        "Over a year of uncertainty",
        "[2024-01-06..07]",
    ),
    (ZH, "zh", "我的签证等了多久才批下来？", "整整十四个月提心吊胆", "[2024-01-06]"),
]


def _cut(embedder, text, lang, question, meaning=True):
    times = normalize_time(text, SAID, lang=lang)
    anchor = times[0].start  # the event's time: the first one said
    terms = tokenize(question)
    if not meaning:
        return snippet(text, times, terms, anchor=anchor)
    found = SentenceMeaning(embedder.embed_batch, embedder.embed_batch([question])[0], 100)
    found.prepare([room_sentences(text, times, terms, SNIPPET_TOKENS, anchor)])
    return snippet(text, times, terms, anchor=anchor, relevance=Relevance(found))


@pytest.mark.parametrize("text,lang,question,answer,date", CASES)
def test_a_long_turn_keeps_the_answer_that_shares_no_word_and_its_date(embedder, text, lang, question, answer, date):
    assert count_tokens(text) > SNIPPET_TOKENS
    assert not set(tokenize(question)) & set(tokenize(answer))  # no shared word to find it by
    before = _cut(embedder, text, lang, question, meaning=False)
    after = _cut(embedder, text, lang, question)
    assert answer not in before and date in before  # the shared-words cut loses it
    assert answer in after and date in after
    assert count_tokens(after) <= SNIPPET_TOKENS + 2  # the budget, and the " … " between the pieces
    for piece in before.strip("… ").split(" … "):
        assert piece in after  # what shares words (and the date) stays
    assert "?" not in after and "？" not in after  # a question in the turn answers nothing


@pytest.mark.parametrize("text,lang,question,answer,date", CASES)
def test_no_meaning_known_keeps_the_shared_words_cut(embedder, text, lang, question, answer, date):
    """A turn whose sentences were not embedded (past the question's limit) is cut as before."""
    times = normalize_time(text, SAID, lang=lang)
    terms = tokenize(question)
    unknown = SentenceMeaning(embedder.embed_batch, embedder.embed_batch([question])[0], 100)  # nothing prepared
    cut = snippet(text, times, terms, anchor=times[0].start, relevance=Relevance(unknown))
    assert cut == snippet(text, times, terms, anchor=times[0].start)
    limited = SentenceMeaning(embedder.embed_batch, embedder.embed_batch([question])[0], 1)
    limited.prepare([room_sentences(text, times, terms, SNIPPET_TOKENS, times[0].start)])
    assert not limited.cosines  # more statements than the limit: none embedded


class CountingEmbedder:
    def __init__(self, inner):
        self.inner, self.name, self.dim, self.calls = inner, inner.name, inner.dim, 0

    def embed_batch(self, texts):
        self.calls += 1
        return self.inner.embed_batch(texts)


MEANING = dataclasses.replace(MemoryConfig(), fusion=FusionConfig(snippet_neighbours=False, snippet_meaning=True))


@pytest.mark.parametrize("text,lang,question,answer,date", CASES)
def test_memory_cards_fill_by_meaning_in_one_embedding_call(make_memory, embedder, text, lang, question, answer, date):
    """Through a real memory (``snippet_meaning``): the card of a long turn keeps the answer
    and its date, the sentences are embedded in one call besides the question's, and a limit
    of no sentences (or turning it off) gives the shared-words cut."""
    counting = CountingEmbedder(embedder)
    mem = make_memory(embedder=counting, config=MEANING)
    mem.write(Turn(text=text, user_id="u", session_id="s", timestamp=SAID, turn_id="t1"))
    counting.calls = 0
    card = mem.retrieve(question, user_id="u", now=SAID + timedelta(days=2)).cards[0]
    assert counting.calls == 2  # the question, then every sentence scored by meaning at once
    assert answer in card.text and date in card.text
    for off in (
        FusionConfig(snippet_neighbours=False, snippet_meaning=True, snippet_sentences=0),
        FusionConfig(snippet_neighbours=False),
    ):
        mem.reader.config = dataclasses.replace(MemoryConfig(), fusion=off)
        plain = mem.retrieve(question, user_id="u", now=SAID + timedelta(days=2)).cards[0]
        assert answer not in plain.text and date in plain.text


NEIGHBOURED = [
    (EN, "en", "How long did I wait for the decision on my asylum application?", "Over a year of uncertainty"),
    (ZH.replace("整整", "签证的事拖了好久。整整"), "zh", "我的签证等了多久才批下来？", "整整十四个月提心吊胆"),
]


@pytest.mark.parametrize("text,lang,question,answer", NEIGHBOURED)
def test_memory_cards_fill_with_what_follows_the_match_by_default(make_memory, embedder, text, lang, question, answer):
    """The default (``snippet_neighbours``): no sentence is embedded, and the statement after
    the one sharing words with the question joins the card; off, the shared-words cut."""
    counting = CountingEmbedder(embedder)
    mem = make_memory(embedder=counting)
    mem.write(Turn(text=text, user_id="u", session_id="s", timestamp=SAID, turn_id="t1"))
    counting.calls = 0
    card = mem.retrieve(question, user_id="u", now=SAID + timedelta(days=2)).cards[0]
    assert counting.calls == 1  # the question alone
    assert answer in card.text and count_tokens(card.text) < count_tokens(text)
    mem.reader.config = dataclasses.replace(MemoryConfig(), fusion=FusionConfig(snippet_neighbours=False))
    assert answer not in mem.retrieve(question, user_id="u", now=SAID + timedelta(days=2)).cards[0].text


@pytest.mark.parametrize("text,lang,question,answer", NEIGHBOURED)
def test_neighbours_fill_the_room_with_what_follows_the_match(text, lang, question, answer):
    """``snippet_neighbours``: no embedding; the statement after the one sharing words fills the room."""
    times = normalize_time(text, SAID, lang=lang)
    terms = tokenize(question)
    before = snippet(text, times, terms, anchor=times[0].start)
    after = snippet(text, times, terms, anchor=times[0].start, relevance=Relevance(neighbours=True))
    assert answer not in before and answer in after
    assert count_tokens(after) <= SNIPPET_TOKENS + 2
    for piece in before.strip("… ").split(" … "):
        assert piece in after
