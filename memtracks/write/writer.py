"""The writer: runs each turn through the stages and lands the results on the three tracks.

    text -> language -> entities, times -> slot values, happenings -> event
         -> conflicts (fact track) -> inference (inference track) -> chain links, vectors

Everything for a batch of turns is stored in one transaction: if any storage step fails,
nothing of the batch is written. Language analysis and the embedding of the turns' own texts
run before it opens, so other writers wait only for the storing. If a language stage fails on a turn (a bug, not the
caller's fault), the turn and its event are still stored, without facts, and the result
carries a warning: the user's words are never dropped.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import numpy as np

from memtracks.config import WriterConfig, is_assistant
from memtracks.errors import StorageError
from memtracks.pipeline.changes import CHANGE_KINDS, changed_event, find_target
from memtracks.pipeline.conflicts import (
    CORRECTION_WINDOW,
    FactChanges,
    pair_replacements,
    reopen_replaced,
    resolve_conflicts,
    supersede,
)
from memtracks.pipeline.corrections import correction_of, earlier_candidates, pick_target, redating
from memtracks.pipeline.events import build_event
from memtracks.pipeline.inference import Context, Derived, infer, retract
from memtracks.pipeline.language import detect_language
from memtracks.pipeline.nlp import Analysis, Ents
from memtracks.pipeline.replies import filled_answer
from memtracks.pipeline.statement_reader import reader_for
from memtracks.pipeline.subjects.resolver import named_relations
from memtracks.pipeline.text import sentences
from memtracks.records import (
    Event,
    Fact,
    Happening,
    Inference,
    Premise,
    SlotValue,
    Turn,
    WriteResult,
)
from memtracks.retrieval.embedders import Embedder
from memtracks.storage import Storage
from memtracks.toolkit import Toolkit
from memtracks.tracks import FACTS, INFERENCES, TEMPORAL, TRACKS, Track
from memtracks.tracks.temporal import chain_links, change_note, spoken_text
from memtracks.write.gate import Screen
from memtracks.write.stages import Extraction, TurnDoc, extract, names_of
from memtracks.write.validation import already_written, content_hash

log = logging.getLogger(__name__)

NEARBY_TURNS = 4  # a bare correction reaches back this many of the speaker's turns
EARLIER_TURNS = 6  # "she" at the start of a turn may refer to someone named in this many turns before


@dataclass
class PendingVector:
    """A memory to embed and index once its transaction commits."""

    track: str
    user_id: str
    item_id: int
    text: str
    keys: tuple[str, ...] = ()  # entity keys, for lexical search
    vector: np.ndarray | None = None

    @property
    def content_hash(self) -> str:
        return hashlib.sha1(self.text.encode("utf-8")).hexdigest()


@dataclass
class Batch:
    """What one transaction wrote: results, and what the in-memory indexes must learn."""

    results: list[WriteResult]
    vectors: list[PendingVector]
    links: list[tuple[str, int, int, str, str]]  # (user, src, dst, kind, key)


@dataclass
class Screened:
    """A batch as the language tools take it, made before it is written (and, in a long
    ``write_many``, before the batch ahead of it is: :mod:`memtracks.write.read_ahead`)."""

    screens: list[Screen]
    langs: list[str | None]  # forced per text; None = detect
    entities: dict[int, Ents] | None = None  # English named entities read already, by index

    @property
    def texts(self) -> list[str]:
        return [s.masked for s in self.screens]


@dataclass
class _TurnOutcome:
    facts: dict[int, Fact] = field(default_factory=dict)
    touched: list[int] = field(default_factory=list)
    ended: list[int] = field(default_factory=list)
    inferences: list[Inference] = field(default_factory=list)
    retracted: list[Inference] = field(default_factory=list)
    created: list[int] = field(default_factory=list)  # facts new in this turn: each needs its vector
    concluded: list[Inference] = field(default_factory=list)  # conclusions new in this turn, even if retracted


def _shifted(found: Extraction, offset: int) -> Extraction:
    """``found`` (from a sentence that starts at ``offset``) with its spans in the turn's text."""

    def move(span: tuple[int, int]) -> tuple[int, int]:
        return (span[0] + offset, span[1] + offset)

    return Extraction(
        tuple(replace(e, span=move(e.span)) for e in found.entities),
        tuple(replace(t, span=move(t.span)) for t in found.times),
        tuple(replace(v, span=move(v.span)) for v in found.values),
        tuple(replace(h, span=move(h.span)) for h in found.happenings),
    )


class KnownVectors:
    """An embedder that answers texts embedded already from ``known``, and embeds the rest."""

    def __init__(self, embedder: Embedder, known: dict[str, np.ndarray]) -> None:
        self.embedder, self.known = embedder, known
        self.name, self.dim = getattr(embedder, "name", ""), getattr(embedder, "dim", 0)

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self.known))
        new = dict(zip(missing, self.embedder.embed_batch(missing), strict=True)) if missing else {}
        return np.stack([self.known[t] if t in self.known else new[t] for t in texts])


class Writer:
    """Writes validated turns into a store (:class:`~memtracks.storage.Storage`)."""

    def __init__(self, store: Storage, toolkit: Toolkit, embedder: Embedder, config: WriterConfig):
        self.store = store
        self.toolkit = toolkit
        self.embedder = embedder
        self._reader = reader_for(embedder) if config.statement_reader else None
        self.config = config
        self._speakers: dict[str, set[str]] = {}
        self._links: list[tuple[str, int, int, str, str]] = []
        self._known: dict[str, np.ndarray] = {}  # texts embedded before the write transaction

    def reset_caches(self) -> None:
        """Forget what was cached from the store (another process wrote, or memories were erased)."""
        self._speakers.clear()

    def speakers(self, user_id: str) -> set[str]:
        """Everyone who has spoken in this user's conversations (cached)."""
        if user_id not in self._speakers:
            self._speakers[user_id] = set(self.store.speakers(user_id))
        return self._speakers[user_id]

    # ------------------------------------------------------------------ batch

    def screened(self, turns: Sequence[tuple[Turn, list[str]]]) -> Screened:
        """The batch's texts as the language tools read them: screened by the write gate, with
        the language forced where the turn gives one."""
        limit = self.config.max_analyzed_chars
        screens = [self.screen(t.text[:limit]) for t, _ in turns]
        # a turn that is all noise keeps the language it is written in; the others, their own words'
        langs = [
            t.lang or (detect_language(s.text) if s.blocked else None) for (t, _), s in zip(turns, screens, strict=True)
        ]
        return Screened(screens, langs)

    def write(self, turns: Sequence[tuple[Turn, list[str]]], screened: Screened | None = None) -> Batch:
        """Write validated, non-duplicate turns in one transaction.

        ``screened``: :meth:`screened` of these turns, made earlier (with their English
        entities, when read ahead).

        Returns the results, and the vectors and chain links stored, so the caller can update
        its in-memory indexes once the transaction has committed.
        """
        self._links = []
        limit = self.config.max_analyzed_chars
        screened = screened or self.screened(turns)
        screens = screened.screens
        analyses = self.toolkit.nlp.analyze(
            screened.texts, screened.langs, parse_if=self.toolkit.may_state, entities=screened.entities
        )
        # The events' texts are the turns' own: embedded before the transaction opens, so other
        # writers do not wait on the embedder. What the batch derives (facts, conclusions) is only
        # known inside it and embedded there, so a failed write still leaves nothing behind.
        embedded = self._embed_texts([spoken_text(t.speaker, t.text, self.config) for t, _ in turns])
        self._known = embedded  # the statement reader reads a turn said whole from its vector
        results: list[WriteResult] = []
        pending: list[PendingVector] = []
        try:
            with self.store.transaction():
                for (turn, warnings), analysis, screen in zip(turns, analyses, screens, strict=True):
                    stored = self.store.turn(turn.user_id, turn.turn_id)  # type: ignore[arg-type]
                    if stored is not None:  # written meanwhile by another thread or process
                        results.append(already_written(turn, stored["content_hash"]))
                        continue
                    if len(turn.text) > limit:
                        warnings = [*warnings, f"only the first {limit:,} characters were analysed"]
                    result, vectors = self._write_turn(turn, warnings, analysis, screen)
                    results.append(result)
                    pending.extend(vectors)
                self.embed(pending, embedded)
                for track in (t.stored for t in TRACKS):
                    items = [p for p in pending if p.track == track]
                    for user in {p.user_id for p in items}:
                        self.store.save_vectors(
                            user,
                            track,
                            [
                                (p.item_id, p.content_hash, p.vector)
                                for p in items
                                if p.user_id == user and p.vector is not None
                            ],
                        )
        except self.store.database_errors as exc:
            raise StorageError(f"writing {len(turns)} turn(s) failed and was rolled back: {exc}") from exc
        return Batch(results, pending, self._links)

    def embed(self, pending: list[PendingVector], embedded: dict[str, np.ndarray] | None = None) -> None:
        """Give each pending memory its vector: from ``embedded`` (texts embedded earlier), the
        others embedded now in one batch."""
        vectors = dict(embedded or {})
        vectors.update(self._embed_texts([p.text for p in pending if p.text not in vectors]))
        for p in pending:
            p.vector = vectors[p.text]

    def _embed_texts(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        unique = list(dict.fromkeys(texts))
        if not unique:
            return {}
        return dict(zip(unique, self.embedder.embed_batch(unique), strict=True))

    # ------------------------------------------------------------------ one turn

    def screen(self, text: str) -> Screen:
        """What the write gate (:mod:`memtracks.write.gate`) finds in a turn's text."""
        if not self.config.gate:
            return Screen(text, ())
        return self.toolkit.gate.screen(text, self.toolkit.lexicons.to_simplified)

    def _write_turn(
        self, turn: Turn, warnings: list[str], analysis: Analysis, screen: Screen
    ) -> tuple[WriteResult, list[PendingVector]]:
        assert turn.user_id and turn.session_id and turn.turn_id and turn.timestamp
        user = turn.user_id
        subject = self.speaker_subject(turn.speaker)
        note = screen.warning()
        if note:
            warnings = [*warnings, note]
        try:
            found = Extraction() if screen.blocked else self._extract(turn, analysis, subject)
            if not found.values and not screen.blocked:
                found = self._read_as_answer(turn, analysis, subject, found)
        except Exception as exc:  # a stage bug must not lose the user's words, nor the other sentences' facts
            log.exception("extraction failed for turn %s; extracting it sentence by sentence", turn.turn_id)
            found, failed = self._extract_by_sentence(turn, analysis, subject)
            warnings = [*warnings, f"extraction failed ({exc!r}); {failed} sentence(s) stored without facts"]
        seq = self.store.next_seq(user, turn.session_id)
        self.store.insert_turn(turn, analysis.lang, content_hash(turn), seq)
        event = self._save_event(turn, analysis, subject, seq, found)
        try:
            with self.store.savepoint("derive"):  # a failing stage leaves nothing half-stored
                outcome = self._derive(turn, found, event)
        except self.store.database_errors:
            raise
        except Exception as exc:
            log.exception("fact/inference stage failed for turn %s; deriving value by value", turn.turn_id)
            outcome, parts = self._derive_one_by_one(turn, found, event)
            warnings = [*warnings, f"fact and inference stages failed ({exc!r}) on {'; '.join(parts)}; kept the rest"]
        self._save_names(user, found.values, event.happenings)
        relations = named_relations(analysis.text, self.toolkit.lexicons, found.entities, analysis.tokens)
        if relations and subject != "assistant":
            self.store.save_relations(user, [(subject, rel, name) for rel, name in relations])
            self.store.save_names(
                user,
                [
                    (name, name.lower(), "pet" if self.toolkit.lexicons.animals.key(rel) else "person")
                    for rel, name in relations
                ],
            )
        vectors = [self.pending(TEMPORAL, user, event)]
        vectors += self._new_vectors(user, outcome)
        result = WriteResult(
            turn=turn,
            lang=analysis.lang,
            entities=found.entities,
            times=found.times,
            facts=tuple(outcome.facts[i] for i in dict.fromkeys(outcome.touched) if i in outcome.facts),
            superseded=tuple(outcome.facts[i] for i in dict.fromkeys(outcome.ended) if i in outcome.facts),
            event=event,
            inferences=tuple(outcome.inferences),
            retracted=tuple(outcome.retracted),
            warnings=tuple(warnings),
        )
        return result, vectors

    def _extract_by_sentence(self, turn: Turn, analysis: Analysis, subject: str) -> tuple[Extraction, int]:
        """What each sentence of the turn says on its own, for when extracting the whole turn
        failed: a stage that breaks on one sentence loses that sentence's facts only. Returns
        the merged extraction (spans in the turn's text; no bare corrections) and how many
        sentences failed."""
        parts: list[Extraction] = []
        failed = 0
        lang = analysis.lang if analysis.lang in ("en", "zh") else None
        for sent in sentences(analysis.text):
            piece = analysis.text[sent.start : sent.end]
            try:
                alone = self.toolkit.nlp.analyze([piece], [lang], parse_if=self.toolkit.may_state)[0]
                parts.append(_shifted(self._extract(turn, alone, subject), sent.start))
            except Exception:
                log.exception("extraction failed for a sentence of turn %s", turn.turn_id)
                failed += 1
        merged = Extraction(
            tuple(e for p in parts for e in p.entities),
            tuple(t for p in parts for t in p.times),
            tuple(v for p in parts for v in p.values),
            tuple(h for p in parts for h in p.happenings),
        )
        return merged, failed

    def _derive_one_by_one(self, turn: Turn, found: Extraction, event: Event) -> tuple[_TurnOutcome, list[str]]:
        """The fact and inference stages for each value on its own (and the happenings last),
        each in a savepoint, for when deriving them together failed: one value that breaks a
        stage loses only itself. Returns the merged outcome and what failed."""
        merged, failed = _TurnOutcome(), []
        singles = [replace(found, values=(v,), corrections=()) for v in found.values]
        for n, part in enumerate([*singles, replace(found, values=(), corrections=())]):
            try:
                with self.store.savepoint(f"derive_{n}"):
                    outcome = self._derive(turn, part, event, happenings=n == len(singles))
            except self.store.database_errors:
                raise
            except Exception:
                log.exception("fact/inference stage failed for part of turn %s", turn.turn_id)
                failed.append(f"{part.values[0].slot}: {part.values[0].value}" if part.values else "its happenings")
                continue
            merged.facts.update(outcome.facts)
            merged.touched += outcome.touched
            merged.ended += outcome.ended
            merged.inferences += outcome.inferences
            merged.retracted += outcome.retracted
            merged.created += outcome.created
            merged.concluded += outcome.concluded
        return merged, failed

    def _new_vectors(self, user: str, outcome: _TurnOutcome) -> list[PendingVector]:
        """A vector for every fact and conclusion the turn created — also one mentioned twice
        in the turn ("I'm married to Sam"), ended or retracted before it was over: every
        stored memory has its vector."""
        facts = [outcome.facts[i] for i in dict.fromkeys(outcome.created) if i in outcome.facts]
        concluded = {i.id: i for i in outcome.concluded}.values()
        return [self.pending(FACTS, user, f) for f in facts] + [self.pending(INFERENCES, user, i) for i in concluded]

    def pending(self, track: Track[Any], user: str, record: Any) -> PendingVector:
        """A memory of ``track`` to embed: its indexed text and keys, as the track gives them."""
        text, keys = track.indexed(record, self.toolkit.catalogue, self.config)
        return PendingVector(track.stored, user, record.id, text, keys)

    def speaker_subject(self, speaker: str) -> str:
        return "assistant" if is_assistant(speaker, self.config.assistant_speakers) else speaker

    def _extract(self, turn: Turn, analysis: Analysis, subject: str) -> Extraction:
        """The stages of :mod:`memtracks.write.stages` over the turn."""
        doc = TurnDoc(turn, analysis, subject, self.toolkit, self)
        if self._reader is not None:
            reader = self._reader
            known = KnownVectors(self.embedder, self._known)
            doc.read = lambda clauses: reader.read(clauses, known, self.toolkit)
            doc.min_probability = self.config.reader_min_probability
            doc.unnamed_min_probability = self.config.reader_unnamed_min_probability
        return extract(doc)

    # the writer answers the stages' questions about the memory (stages.Sources)

    def known_names(self, user_id: str) -> dict[str, tuple[str, str]]:
        return self.store.names(user_id)

    def held_values(self, user_id: str, subject: str, slots: Sequence[str]) -> list[Fact]:
        """The values of ``slots`` that ``subject`` holds now or plans (the statement reader's candidates)."""
        return self.store.facts(user_id, subjects=[subject], slots=slots, current_only=True)

    def known_relations(self, user_id: str) -> list[tuple[str, str, str]]:
        return self.store.relations(user_id)

    def _read_as_answer(self, turn: Turn, analysis: Analysis, subject: str, found: Extraction) -> Extraction:
        """A bare Chinese answer to the question just before ("你养了什么？" — "一只猫"): the
        values of the question filled with it (:mod:`memtracks.pipeline.replies`)."""
        if analysis.primary != "zh" or subject == "assistant" or len(analysis.text) > 16:
            return found
        before = self.turns_before(turn)
        if not before or before[-1][0] == subject:
            return found
        asked = before[-1][1]
        filled = filled_answer(asked, analysis.text, self.toolkit.lexicons.to_simplified(asked))
        if filled is None:
            return found
        values = self._extract(turn, self.toolkit.nlp.analyze([filled], ["zh"])[0], subject).values
        return replace(found, values=values) if values else found

    # ------------------------------------------------------------------ bare corrections

    def _correct_earlier(self, turn: Turn, found: Extraction, event: Event, outcome: _TurnOutcome) -> list[SlotValue]:
        """Bare corrections of what the speaker said in the turns just before: the values that
        correct facts; a corrected time re-dates its happening at once."""
        assert turn.user_id and turn.timestamp
        if not found.corrections or found.check is None:
            return []
        recent = [
            e
            for e in self.store.events(turn.user_id, subjects=[event.subject], limit=NEARBY_TURNS + 1)
            if e.id != event.id and turn.timestamp - e.mentioned_at <= CORRECTION_WINDOW
        ][:NEARBY_TURNS]
        if not recent:
            return []
        facts = self.store.facts(turn.user_id, current_only=True)
        cands = earlier_candidates(recent, facts, self.toolkit.catalogue.kinds, event.subject)
        values = []
        for c in found.corrections:
            target = pick_target(c, cands, lambda value, kind: found.check(value, kind, c.span))  # type: ignore[misc]  # noqa: B023
            if target is not None and target.fact is not None:
                values.append(correction_of(c, target))
            elif target is not None and target.event is not None:
                change = redating(c, target, event.subject)
                self._redate(turn, event, target.event, target.index, change, "date corrected", outcome)
        return values

    def turns_before(self, turn: Turn) -> list[tuple[str, str]]:
        """The last turns of the session before ``turn``, oldest first: (speaker subject, text)."""
        assert turn.user_id and turn.session_id
        before = self.store.events_in_session(turn.user_id, turn.session_id, limit=EARLIER_TURNS)
        return [(e.subject, e.text) for e in reversed(before)]

    def _save_event(self, turn: Turn, analysis: Analysis, subject: str, seq: int, found: Extraction) -> Event:
        assert turn.user_id and turn.session_id
        event = build_event(
            turn,
            event_id=self.store.next_id("events"),
            subject=subject,
            lang=analysis.lang,
            seq=seq,
            times=found.times,
            happenings=found.happenings,
            entities=found.entities,
        )
        previous = self.store.last_event_in_session(turn.user_id, turn.session_id)
        last_with = self.store.last_events_with(turn.user_id, list(event.entity_keys))
        self.store.save_event(event)
        links = chain_links(event, previous, last_with)
        self.store.save_links(turn.user_id, links)
        self._links.extend((turn.user_id, *link) for link in links)
        return event

    def _save_names(self, user: str, values: Sequence[SlotValue], happenings: Sequence[Happening]) -> None:
        names = names_of(values, happenings)
        if names:
            self.store.save_names(user, names)

    # ------------------------------------------------------------------ facts and inferences

    def _derive(self, turn: Turn, found: Extraction, event: Event, happenings: bool = True) -> _TurnOutcome:
        """The fact track (values, bare corrections) and the inference track for one turn;
        ``happenings``: also what its event's happenings conclude and change."""
        outcome = _TurnOutcome()
        values = [*found.values, *self._correct_earlier(turn, found, event, outcome)]
        self._apply_values(turn, values, "stated" if turn.source == "stated" else turn.source, outcome)
        events = [event] if happenings and event.happenings else []
        self._follow(turn, [outcome.facts[i] for i in outcome.touched], events, outcome)
        if happenings:
            self._apply_changes(turn, event, outcome)
        self._reopen(turn, outcome)
        return outcome

    def _reopen(self, turn: Turn, outcome: _TurnOutcome) -> None:
        """Plans this turn called off give back the place of the values they were to replace;
        a plan moved to another day hands it to the plan drawn for that day."""
        assert turn.user_id and turn.timestamp
        called_off = [
            f
            for i in outcome.ended
            if (f := outcome.facts.get(i)) is not None and f.planned and f.reason == "cancelled"
        ]
        for plan in called_off:
            older = self.store.facts(turn.user_id, subjects=[plan.subject], slots=[plan.slot])
            by_id = {f.id: f for f in older} | outcome.facts
            successor = by_id.get(plan.superseded_by) if plan.superseded_by is not None else None
            if successor is None:  # a plan moved: the one drawn again for the new day takes its place
                successor = next(
                    (
                        f
                        for f in outcome.facts.values()
                        if f.id != plan.id
                        and (f.subject, f.slot) == (plan.subject, plan.slot)
                        and f.planned
                        and f.is_current
                        and not f.negated
                    ),
                    None,
                )
            reopened = reopen_replaced(plan, older, successor, at=turn.timestamp)
            if reopened:
                self.store.save_facts(reopened)
                outcome.facts.update({f.id: f for f in reopened})  # type: ignore[misc]

    def apply_changes(self, user_id: str, changes: FactChanges, at: datetime, origin: str) -> Batch:
        """Save fact changes the user made by hand (a correction, a retraction) and follow
        them through the rules as a turn's changes are: conclusions resting on an ended fact
        are retracted, a new or reopened fact may draw new ones. ``origin`` ("user.correct")
        stands in for the turn id in what they derive. Runs inside the caller's transaction."""
        turn = Turn(origin, user_id=user_id, session_id=origin, turn_id=origin, timestamp=at)
        outcome = _TurnOutcome()
        self.store.save_facts(changes.all_facts())
        for f in changes.all_facts():
            outcome.facts[f.id] = f  # type: ignore[index]
        outcome.touched.extend(changes.touched)
        outcome.ended.extend(changes.ended)
        outcome.created.extend(f.id for f in changes.added)  # type: ignore[misc]
        self._follow(turn, [outcome.facts[i] for i in changes.touched], [], outcome)
        pending = self._new_vectors(user_id, outcome)
        self.embed(pending)
        for track in (FACTS.stored, INFERENCES.stored):
            self.store.save_vectors(
                user_id,
                track,
                [(p.item_id, p.content_hash, p.vector) for p in pending if p.track == track and p.vector is not None],
            )
        return Batch([], pending, [])

    def _follow(self, turn: Turn, new_facts: list[Fact], new_events: list[Event], outcome: _TurnOutcome) -> None:
        """Run the inference rules over what changed, then retract what rests on ended facts."""
        for _ in range(self.config.inference_rounds):
            if not new_facts and not new_events:
                break
            derived = self._infer(turn, new_facts, new_events, outcome)
            new_events = []
            before = set(outcome.touched)
            for d in derived:
                self._save_inference(turn, d, outcome)
            new_facts = [outcome.facts[i] for i in outcome.touched if i not in before]
        assert turn.timestamp is not None
        replaced = pair_replacements(
            outcome.facts, outcome.ended, outcome.touched, self.toolkit.catalogue, turn.timestamp
        )
        if replaced:
            self.store.save_facts(replaced)
            outcome.facts.update({f.id: f for f in replaced})  # type: ignore[misc]
        self._retract(turn, outcome)

    # ------------------------------------------------------------------ cancellations, postponements

    def _apply_changes(self, turn: Turn, event: Event, outcome: _TurnOutcome) -> None:
        """ "I had to cancel the Tokyo trip": the trip's event is marked, what was inferred
        from it is retracted (and, for a postponement, drawn again with the new date)."""
        assert turn.user_id and turn.timestamp
        for change in (h for h in event.happenings if h.kind in CHANGE_KINDS):
            earlier = [
                e
                for e in self.store.events(turn.user_id, subjects=[change.subject], limit=self.config.context_events)
                if e.id != event.id
            ]
            found = find_target(change, earlier, self.toolkit.change_words, self.toolkit.lexicons.to_simplified)
            if found is None:
                continue
            target, index = found
            self._redate(
                turn, event, target, index, change, "cancelled" if change.kind == "cancel" else "moved", outcome
            )

    def _redate(
        self, turn: Turn, event: Event, target: Event, index: int, change: Happening, verb: str, outcome: _TurnOutcome
    ) -> None:
        """Mark ``target``'s happening cancelled or re-dated by ``change`` (said in ``event``),
        retract what was inferred from it and, for a new date, draw it again."""
        assert turn.timestamp is not None
        updated = changed_event(target, index, change, change_note(verb, turn.timestamp, turn.turn_id or ""))
        self.store.update_happenings(updated)
        self._withdraw(turn, target, change, outcome)
        if change.kind == "postpone" and change.start is not None:
            for d in self._infer(turn, [], [updated], outcome, (Premise("event", event.id),)):  # type: ignore[arg-type]
                self._save_inference(turn, d, outcome)

    def _withdraw(self, turn: Turn, target: Event, change: Happening, outcome: _TurnOutcome) -> None:
        assert turn.user_id and turn.timestamp
        resting = self.store.inferences_resting_on(turn.user_id, [target.id], track="event")  # type: ignore[list-item]
        why = f"premise event #{target.id} {'cancelled' if change.kind == 'cancel' else 'moved'} by turn {turn.turn_id}"
        retracted = [
            replace(i, status="retracted", retracted_at=turn.timestamp, retracted_because=why) for i in resting
        ]
        if retracted:
            self.store.save_inferences(retracted)
            outcome.retracted.extend(retracted)
        plans = [
            f
            for f in self.store.facts_by_id(turn.user_id, [i.derived_fact_id for i in resting if i.derived_fact_id])
            if f.planned and f.is_current
        ]
        ended = [supersede(f, turn.timestamp, None, reason="cancelled", learned=turn.timestamp) for f in plans]
        if ended:
            self.store.save_facts(ended)
            outcome.facts.update({f.id: f for f in ended})  # type: ignore[misc]
            outcome.ended.extend(f.id for f in ended)  # type: ignore[misc]

    def _apply_values(self, turn: Turn, values: Sequence[SlotValue], source: str, outcome: _TurnOutcome) -> FactChanges:
        assert turn.user_id and turn.turn_id and turn.timestamp
        if not values:
            return FactChanges()
        existing = self.store.facts(
            turn.user_id,
            subjects=sorted({v.subject for v in values}),
            slots=sorted({v.slot for v in values} | {s for v in values for s in self._related(v.slot)}),
        )
        counter = iter(range(self.store.next_id("facts"), 1 << 62))
        changes = resolve_conflicts(
            values,
            existing,
            catalogue=self.toolkit.catalogue,
            user_id=turn.user_id,
            turn_id=turn.turn_id,
            at=turn.timestamp,
            new_id=lambda: next(counter),
            source=source,
        )
        self.store.save_facts(changes.all_facts())
        for f in changes.all_facts():
            outcome.facts[f.id] = f  # type: ignore[index]
        outcome.touched.extend(changes.touched)
        outcome.ended.extend(changes.ended)
        outcome.created.extend(f.id for f in changes.added)  # type: ignore[misc]
        return changes

    def _related(self, slot: str) -> set[str]:
        """The slots a value of ``slot`` may end: its opposite, and those its values end."""
        spec = self.toolkit.catalogue.by_name.get(slot)
        if spec is None:
            return set()
        return ({spec.opposite} if spec.opposite else set()) | set(spec.ends) | set(spec.ends_values)

    def _infer(
        self,
        turn: Turn,
        new_facts: list[Fact],
        new_events: list[Event],
        outcome: _TurnOutcome,
        also_from: tuple[Premise, ...] = (),
    ) -> list[Derived]:
        assert turn.user_id and turn.timestamp
        rules = self.toolkit.rules
        subjects = sorted({f.subject for f in new_facts} | {h.subject for e in new_events for h in e.happenings})
        kinds = sorted({p.event for r in rules for p in r.premises if p.event})
        slots = sorted({p.fact for r in rules for p in r.premises if p.fact})
        context = Context(
            facts=self.store.facts(turn.user_id, subjects=subjects, slots=slots, current_only=True),
            events=self.store.events(turn.user_id, kinds=kinds, subjects=subjects, limit=self.config.context_events),
        )
        derived = infer(
            rules,
            new_facts=new_facts,
            new_events=new_events,
            context=context,
            user_id=turn.user_id,
            at=turn.timestamp,
            key_of=self.toolkit.key_of,
        )
        if also_from:  # a re-dated happening: the new conclusion also rests on the turn that moved it
            derived = [
                replace(d, inference=replace(d.inference, premises=(*d.inference.premises, *also_from)))
                for d in derived
            ]
        known = self.store.known_inference_keys(turn.user_id, [d.inference.key for d in derived])
        return [d for d in derived if d.inference.key not in known]

    def _save_inference(self, turn: Turn, d: Derived, outcome: _TurnOutcome) -> None:
        inference = replace(d.inference, id=self.store.next_id("inferences"))
        if d.value is not None and not self.toolkit.well_formed(d.value):
            return  # "入职一周了" is no employer "一周": the turn stays an event
        if d.value is not None and not self._said_otherwise(d.value, outcome):
            changes = self._apply_values(turn, [d.value], "inferred", outcome)
            if changes.touched:
                inference = replace(inference, derived_fact_id=changes.touched[-1])
        self.store.save_inferences([inference])
        outcome.inferences.append(inference)
        outcome.concluded.append(inference)

    def _said_otherwise(self, value: SlotValue, outcome: _TurnOutcome) -> bool:
        """Did the turn itself state another value of this one-valued slot of the subject (我已經移居
        日本了，現在住在大阪: the move concludes 日本, the turn says 大阪)? What is said outranks what is
        concluded from the same words; a conclusion of the value said rests on that fact as usual.
        A planned move or job is no other word on now ("We live in Sacramento but we're moving to
        Boise in November": Boise is planned beside Sacramento), unless the turn says it holds
        already (新家在台中…: 台中 is where one lives, no plan)."""
        spec = self.toolkit.catalogue.by_name.get(value.slot)
        if spec is None or spec.cardinality != "one":
            return False
        said = [
            f
            for i in outcome.created
            if (f := outcome.facts.get(i)) is not None
            and f.subject == value.subject
            and f.slot == value.slot
            and f.source != "inferred"
            and not f.planned
            and not f.negated
            and f.valid_to is None  # not a value said as held before (上周五在字节办完离职)
        ]
        if value.planned and spec.value_type in ("place", "org"):
            return any(f.value_key == value.value_key for f in said)
        return any(f.value_key != value.value_key for f in said)

    def _retract(self, turn: Turn, outcome: _TurnOutcome) -> None:
        assert turn.user_id and turn.timestamp
        ended = {i: outcome.facts[i] for i in outcome.ended if i in outcome.facts}
        if not ended:
            return
        resting = self.store.inferences_resting_on(turn.user_id, list(ended))
        retracted = retract(resting, ended, turn.timestamp)
        if retracted:
            self.store.save_inferences(retracted)
            outcome.retracted.extend(retracted)
            gone = {i.id for i in retracted}
            outcome.inferences = [i for i in outcome.inferences if i.id not in gone]
