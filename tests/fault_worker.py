"""A process that works on a memory file until it is killed, for the fault suite.

python tests/fault_worker.py DB MODE PREFIX SEED

Prints "ready" once the memory is open, then one JSON line per acknowledged write (the turn
ids that ``write_many`` returned for), flushed before it goes on, so whatever the parent
read was acknowledged; and ``{"forgetting": id}`` before a forget, ``{"forgot": id}`` after.
Modes:

- ``write``: batches of one to four turns, English and Chinese, with corrections and
  repeats (a retried request writes the same turn again);
- ``mixed``: a write, a retrieve, now and then a forget and a close-and-reopen (which saves
  index snapshots), so a kill can land in any of them.
"""

from __future__ import annotations

import json
import random
import sys
from datetime import datetime, timedelta, timezone

from memtracks import Memory
from memtracks.config import MemoryConfig

T0 = datetime(2024, 3, 1, 9, tzinfo=timezone.utc)
TEXTS = [
    "I live in Boston and work at Google.",
    "Actually I moved to Denver last month.",
    "我养了一只猫叫豆豆。",
    "I'm flying to Tokyo next Wednesday for a conference.",
    "豆豆最近不爱吃东西，我下周带它去看医生。",
    "My sister Anna lives in Berlin.",
    "我搬到杭州了。",
    "We went to the Monet exhibition yesterday, it was lovely.",
]
QUESTIONS = ["Where do I live now?", "我的猫叫什么？", "When is my trip to Tokyo?", "豆豆怎么了？"]


def turn(prefix: str, n: int) -> dict:
    """Turn ``n`` of this worker, the same every time it is made (so a retry is a duplicate)."""
    rng = random.Random(f"{prefix}-{n}")
    return {
        "text": f"{rng.choice(TEXTS)} ({prefix}-{n})",
        "user_id": rng.choice(["u1", "u2"]),
        "session_id": f"{prefix}-s{n // 5}",
        "turn_id": f"{prefix}-t{n}",
        "timestamp": (T0 + timedelta(minutes=n)).isoformat(),
    }


def main() -> None:
    path, mode, prefix, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    rng = random.Random(seed)
    config = MemoryConfig(snapshot_min=1)
    mem = Memory(path, config=config)
    print("ready", flush=True)
    n = 0
    while True:
        batch = [turn(prefix, n + i) for i in range(rng.randint(1, 4))]
        if n and rng.random() < 0.2:
            batch.append(turn(prefix, rng.randrange(n)))  # a retried request: the same turn again
        n += len(batch)
        results = mem.write_many(batch)
        acknowledged = [r.turn.turn_id for r in results if r is not None]
        print(json.dumps(acknowledged), flush=True)
        if mode != "mixed":
            continue
        mem.retrieve(rng.choice(QUESTIONS), user_id="u1", now=T0 + timedelta(days=30))
        if rng.random() < 0.1:
            victim = rng.choice(batch)
            print(json.dumps({"forgetting": victim["turn_id"]}), flush=True)  # a kill may land before or after
            mem.forget(victim["user_id"], turn_ids=[victim["turn_id"]])
            print(json.dumps({"forgot": victim["turn_id"]}), flush=True)
        if rng.random() < 0.15:
            toolkit, embedder = mem.toolkit, mem.embedder
            mem.close()  # saves snapshots: a kill may land in the middle
            mem = Memory(path, config=config, toolkit=toolkit, embedder=embedder)


if __name__ == "__main__":
    main()
