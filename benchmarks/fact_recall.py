"""Recall and precision of the fact writer against a gold set of labelled turns.

    python -m benchmarks.fact_recall --gold benchmarks/gold/facts_locomo.yaml [--split heldout] [--verbose]
    python -m benchmarks.fact_recall --gold benchmarks/gold/facts_zh_chat.yaml --split all

The gold file (benchmarks/gold/README.md) lists whole sessions of LoCoMo-format conversations,
every turn with the facts a careful note-taker would keep from it (``facts``, often none) and,
optionally, facts that are true but not required (``also``: presupposed, told about the other
speaker, or of a doubtful slot).

Every turn of the conversations the gold file covers is written, in order, into one memory
(each conversation its own user, as ``benchmarks/audit/facts_audit.py`` ingests LoCoMo), with a
hash embedder: the fact writer does not read vectors. Then, for each gold turn, the facts the
writer stored from it (every fact row, current, ended, superseded or negated, whose
``source_turn_ids`` hold the turn) are matched one to one with the turn's gold facts: same
subject (case-insensitive, through the file's ``aliases``), same slot, same polarity, and
values equal after lowercasing and dropping articles, possessives and punctuation, or one a
contiguous part of the other holding at least half of the longer one's tokens (characters for
Chinese; Traditional characters are read as Simplified). A fact the writer stores as already
over when said ("I lost my job at Door Dash": employer Door Dash, ended at once) counts as
negated. A plan stored as current, or the reverse, still matches; it is counted as a tense
mismatch.

recall    = matched gold facts / gold facts
precision = matched writer facts / writer facts on gold turns
lenient   = (matched + matching an ``also`` fact) / writer facts on gold turns

Each missed gold fact gets one kind: *polarity* (all but the negation match), *slot* (subject
and value match, another slot), *subject* (slot and value match, another subject), *value*
(subject and slot match, another value), *other turn* (the writer stored the fact, but from
another turn), *other facts* (the writer stored only unrelated facts from the turn), *nothing*
(it stored no fact from the turn).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import timezone
from pathlib import Path

import numpy as np
import yaml

REPO = Path(__file__).resolve().parents[1]
SPLITS = ("tuning", "heldout", "all")
_FACT = re.compile(r"^(?P<subject>.+?) · (?P<slot>[a-z_]+): (?P<neg>NOT )?(?P<value>.+?)(?P<planned> \(planned\))?$")
_DROP = frozenset({"a", "an", "the", "my", "your", "his", "her", "our", "their", "its"})
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


class HashEmbedder:
    """A fixed, fast stand-in embedder: a text's vector is drawn from its SHA-256. The fact
    writer does not depend on vectors; this only keeps the run quick and reproducible."""

    name = "hash64"
    dim = 64

    def embed_batch(self, texts):
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
            v = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
            out[i] = v / np.linalg.norm(v)
        return out


@dataclass(frozen=True)
class Claim:
    """A fact line: gold, or one the writer stored."""

    subject: str
    slot: str
    value: str
    negated: bool = False
    planned: bool = False

    def line(self) -> str:
        neg = "NOT " if self.negated else ""
        return f"{self.subject} · {self.slot}: {neg}{self.value}{' (planned)' if self.planned else ''}"


def parse_claim(line: str) -> Claim:
    m = _FACT.match(line.strip())
    if m is None:
        raise ValueError(f"not a fact line: {line!r} (expected 'Subject · slot: [NOT ]value[ (planned)]')")
    return Claim(m["subject"].strip(), m["slot"], m["value"].strip(), bool(m["neg"]), bool(m["planned"]))


_SIMPLIFIED: dict[int, str] | None = None


def fold(text: str) -> str:
    """NFKC, lowercase, straight apostrophes and Traditional characters as Simplified (by
    lexicons/traditional.yaml, the table the writer matches through): 訂婚 and 订婚 are one value."""
    global _SIMPLIFIED
    if _SIMPLIFIED is None:
        path = REPO / "lexicons" / "traditional.yaml"
        pairs = yaml.safe_load(path.read_text(encoding="utf-8"))["pairs"].split() if path.exists() else []
        _SIMPLIFIED = {ord(p[0]): p[1] for p in pairs if len(p) == 2}
    return unicodedata.normalize("NFKC", text).casefold().replace("’", "'").translate(_SIMPLIFIED)


def value_tokens(value: str) -> list[str]:
    """Lowercased words (each CJK character its own token), without articles, possessives or
    punctuation."""
    text = fold(value)
    text = re.sub(r"'s\b", " ", text)
    text = "".join(" " if unicodedata.category(ch)[0] in "PSZ" else ch for ch in text)
    tokens: list[str] = []
    for word in text.split():
        for piece in re.split(f"({_CJK.pattern})", word):
            if piece and piece not in _DROP:
                tokens.append(piece)
    return tokens


def values_match(a: str, b: str) -> bool:
    ta, tb = value_tokens(a), value_tokens(b)
    if not ta or not tb:
        return False
    if ta == tb:
        return True
    short, long_ = (ta, tb) if len(ta) <= len(tb) else (tb, ta)
    if len(short) / len(long_) < 0.5:
        return False
    n = len(short)
    return any(long_[i : i + n] == short for i in range(len(long_) - n + 1))


class Subjects:
    """Subject names of one conversation, through the gold file's aliases, case-insensitive."""

    def __init__(self, aliases: dict[str, list[str]] | None):
        self.canon: dict[str, str] = {}
        for name, others in (aliases or {}).items():
            for other in [name, *others]:
                self.canon[self._key(other)] = self._key(name)

    @staticmethod
    def _key(name: str) -> str:
        return " ".join(fold(name).split())

    def __call__(self, name: str) -> str:
        key = self._key(name)
        return self.canon.get(key, key)


def same(a: Claim, b: Claim, subj: Subjects, *, slot=True, subject=True, value=True, polarity=True) -> bool:
    return (
        (not subject or subj(a.subject) == subj(b.subject))
        and (not slot or a.slot == b.slot)
        and (not polarity or a.negated == b.negated)
        and (not value or values_match(a.value, b.value))
    )


def match_one_to_one(gold: list[Claim], stored: list[Claim], subj: Subjects) -> dict[int, int]:
    """A maximum matching of gold to stored facts (gold index -> stored index)."""
    edges = [[j for j, s in enumerate(stored) if same(g, s, subj)] for g in gold]
    owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j in edges[i]:
            if j in seen:
                continue
            seen.add(j)
            if j not in owner or augment(owner[j], seen):
                owner[j] = i
                return True
        return False

    for i in range(len(gold)):
        augment(i, set())
    return {i: j for j, i in owner.items()}


@dataclass
class Tally:
    turns: int = 0
    gold_turns: int = 0
    gold: int = 0
    stored: int = 0
    matched: int = 0
    also: int = 0
    tense: int = 0
    by_slot: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    kinds: Counter = field(default_factory=Counter)
    kinds_by_slot: Counter = field(default_factory=Counter)
    misses: list[tuple] = field(default_factory=list)
    false: list[tuple] = field(default_factory=list)
    also_items: list[tuple] = field(default_factory=list)


def miss_kind(g: Claim, on_turn: list[Claim], elsewhere: list[Claim], subj: Subjects) -> tuple[str, Claim | None]:
    checks = (
        ("polarity", dict(polarity=False)),
        ("slot", dict(slot=False)),
        ("subject", dict(subject=False)),
        ("value", dict(value=False)),
    )
    for kind, loose in checks:
        for s in on_turn:
            if same(g, s, subj, **loose):
                return kind, s
    for s in elsewhere:
        if same(g, s, subj):
            return "other turn", s
    return ("other facts" if on_turn else "nothing"), None


def load_gold(path: Path) -> dict:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    for key in ("data", "turns"):
        if key not in doc:
            raise SystemExit(f"{path}: no '{key}'")
    return doc


def data_path(doc: dict, gold_path: Path) -> Path:
    for base in (REPO, Path.cwd(), gold_path.parent):
        p = (base / doc["data"]).resolve()
        if p.exists():
            return p
    raise SystemExit(f"data file {doc['data']!r} not found (relative to the repo, the working folder or the gold file)")


def stored_facts(samples: list[dict], embedder, quiet: bool):
    """Write every turn of ``samples`` into one memory; the facts stored from each turn
    (user -> turn id -> claims) and every claim of each user."""
    from memtracks import Memory
    from memtracks.interfaces.io import locomo_turns

    mem = Memory(embedder=embedder)
    turns = [t for s in samples for t in locomo_turns(s, timezone.utc)]
    mem.write_many(turns, progress=not quiet)
    by_turn: dict[str, dict[str, list[Claim]]] = {}
    every: dict[str, list[Claim]] = {}
    for s in samples:
        user = str(s["sample_id"])
        per: dict[str, list[Claim]] = defaultdict(list)
        claims = []
        for f in mem.facts(user, include_superseded=True):
            # a fact stored as already over when said ("I lost my job at X": employer X, ended
            # at once) says the value no longer holds: the gold's "NOT X"
            over = f.valid_to is not None and f.valid_to <= f.valid_from
            c = Claim(f.subject, f.slot, f.value or "", bool(f.negated) or over, bool(getattr(f, "planned", False)))
            claims.append(c)
            for tid in dict.fromkeys(f.source_turn_ids):
                per[tid].append(c)
        by_turn[user] = per
        every[user] = claims
    mem.close()
    return by_turn, every, len(turns)


def score(doc: dict, by_turn, every, source_turns: dict, splits: list[str]) -> dict[str, Tally]:
    aliases = doc.get("aliases") or {}
    subjects = {sid: Subjects(aliases.get(sid)) for sid in {t["sample_id"] for t in doc["turns"]}}
    tallies = {s: Tally() for s in splits}
    for t in doc["turns"]:
        sid, dia = t["sample_id"], t["dia_id"]
        known = source_turns.get((sid, dia))
        if known is None:
            raise SystemExit(f"gold turn {sid} {dia} is not in the data file")
        if known != t.get("speaker", known):
            raise SystemExit(f"gold turn {sid} {dia}: speaker {t.get('speaker')!r}, the data says {known!r}")
        gold = [parse_claim(x) for x in t.get("facts") or []]
        also = [parse_claim(x) for x in t.get("also") or []]
        stored = by_turn.get(sid, {}).get(dia, [])
        subj = subjects[sid]
        pairs = match_one_to_one(gold, stored, subj)
        matched_stored = set(pairs.values())
        elsewhere = [c for c in every.get(sid, []) if c not in stored]
        for split in splits:
            if split != "all" and t["split"] != split:
                continue
            tl = tallies[split]
            tl.turns += 1
            tl.gold_turns += bool(gold)
            tl.gold += len(gold)
            tl.stored += len(stored)
            tl.matched += len(pairs)
            for i, g in enumerate(gold):
                tl.by_slot[g.slot]["gold"] += 1
                if i in pairs:
                    tl.by_slot[g.slot]["matched"] += 1
                    if stored[pairs[i]].planned != g.planned:
                        tl.tense += 1
                else:
                    kind, near = miss_kind(g, stored, elsewhere, subj)
                    tl.kinds[kind] += 1
                    tl.kinds_by_slot[(g.slot, kind)] += 1
                    tl.misses.append((sid, dia, t["speaker"], t["text"], g, kind, near))
            for j, s in enumerate(stored):
                tl.by_slot[s.slot]["stored"] += 1
                if j in matched_stored:
                    tl.by_slot[s.slot]["correct"] += 1
                elif any(same(a, s, subj) for a in also):
                    tl.also += 1
                    tl.by_slot[s.slot]["also"] += 1
                    tl.also_items.append((sid, dia, t["speaker"], t["text"], s))
                else:
                    tl.false.append((sid, dia, t["speaker"], t["text"], s))
    return tallies


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.3f}" if b else "  —  "


def report(name: str, tallies: dict[str, Tally], verbose: bool) -> dict:
    out = {}
    print(f"\n== {name}")
    print(
        f"{'split':8} {'turns':>5} {'w/gold':>6} {'gold':>5} {'writer':>6} {'match':>5} {'also':>4} "
        f"{'recall':>6} {'prec':>6} {'lenient':>7} {'tense≠':>6}"
    )
    for split, tl in tallies.items():
        print(
            f"{split:8} {tl.turns:5d} {tl.gold_turns:6d} {tl.gold:5d} {tl.stored:6d} {tl.matched:5d} {tl.also:4d} "
            f"{_ratio(tl.matched, tl.gold):>6} {_ratio(tl.matched, tl.stored):>6} "
            f"{_ratio(tl.matched + tl.also, tl.stored):>7} {tl.tense:6d}"
        )
        out[split] = {
            "turns": tl.turns,
            "gold_turns": tl.gold_turns,
            "gold": tl.gold,
            "writer": tl.stored,
            "matched": tl.matched,
            "also": tl.also,
            "recall": round(tl.matched / tl.gold, 4) if tl.gold else None,
            "precision": round(tl.matched / tl.stored, 4) if tl.stored else None,
            "precision_lenient": round((tl.matched + tl.also) / tl.stored, 4) if tl.stored else None,
            "tense_mismatches": tl.tense,
            "slots": {k: dict(v) for k, v in sorted(tl.by_slot.items())},
            "miss_kinds": dict(tl.kinds.most_common()),
        }
    for split, tl in tallies.items():
        print(f"\n-- per slot ({split}): gold matched recall | writer correct also precision")
        for slot, c in sorted(tl.by_slot.items(), key=lambda kv: (-kv[1]["gold"], -kv[1]["stored"], kv[0])):
            print(
                f"  {slot:20} {c['gold']:4d} {c['matched']:4d} {_ratio(c['matched'], c['gold']):>6} | "
                f"{c['stored']:4d} {c['correct']:4d} {c['also']:3d} {_ratio(c['correct'], c['stored']):>6}"
            )
        print(f"-- misses by kind ({split}): " + ", ".join(f"{k} {n}" for k, n in tl.kinds.most_common()))
        top = ", ".join(f"{s}/{k} {n}" for (s, k), n in tl.kinds_by_slot.most_common(15))
        print(f"-- most common misses, slot/kind ({split}): {top}")
    if verbose:
        tl = tallies.get("all") or next(iter(tallies.values()))
        print("\n-- missed gold facts")
        for sid, dia, speaker, text, g, kind, near in tl.misses:
            extra = f"  (writer: {near.line()})" if near else ""
            print(f"  [{kind}] {sid} {dia} {g.line()}{extra}\n      {speaker}: {text[:220]}")
        print("\n-- writer facts not in the gold")
        for sid, dia, speaker, text, s in tl.false:
            print(f"  {sid} {dia} {s.line()}\n      {speaker}: {text[:220]}")
        print("\n-- writer facts matching an `also` fact (not counted as false in the lenient precision)")
        for sid, dia, _speaker, _text, s in tl.also_items:
            print(f"  {sid} {dia} {s.line()}")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gold", required=True, nargs="+", help="gold YAML file(s)")
    parser.add_argument("--split", choices=SPLITS, help="only this split (default: tuning, heldout and all)")
    parser.add_argument("--verbose", action="store_true", help="print every miss and every fact not in the gold")
    parser.add_argument("--embedder", default="hash", help="'hash' (default, fast) or a memtracks embedder name")
    parser.add_argument("--json", help="write the figures to this JSON file")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    splits = [args.split] if args.split else list(SPLITS)
    embedder = HashEmbedder() if args.embedder == "hash" else args.embedder
    results = {}
    for gold_file in args.gold:
        gold_path = Path(gold_file)
        doc = load_gold(gold_path)
        data = json.loads(data_path(doc, gold_path).read_text(encoding="utf-8"))
        wanted = list(dict.fromkeys(t["sample_id"] for t in doc["turns"]))
        samples = [s for s in (data if isinstance(data, list) else [data]) if str(s.get("sample_id")) in wanted]
        missing = set(wanted) - {str(s["sample_id"]) for s in samples}
        if missing:
            raise SystemExit(f"{gold_file}: samples not in the data file: {', '.join(sorted(missing))}")
        source_turns = {
            (str(s["sample_id"]), t["dia_id"]): t["speaker"]
            for s in samples
            for k, v in s["conversation"].items()
            if re.fullmatch(r"session_\d+", k) and isinstance(v, list)
            for t in v
        }
        by_turn, every, n_turns = stored_facts(samples, embedder, args.quiet)
        tallies = score(doc, by_turn, every, source_turns, splits)
        print(f"\n{gold_file}: {len(samples)} conversations, {n_turns} turns written, {len(doc['turns'])} gold turns")
        results[gold_file] = report(gold_path.stem, tallies, args.verbose)
    if args.json:
        Path(args.json).write_text(json.dumps(results, ensure_ascii=False, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
