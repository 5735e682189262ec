"""A second process on the same memory file, for the multi-process tests.

python tests/proc_memory.py DB COMMAND JSON-ARGS   ->  prints a JSON result

With ``"go": PATH`` in the arguments, the process prints "ready" once the memory is open and
waits for PATH to exist before it starts, so that several processes can start at once. With
``"no_close": true`` it exits without ``close()`` (as a killed process would: nothing saved
then), and a memory rebuilt from 3 or more stored items saves its snapshots at once.
"""

from __future__ import annotations

import json
import os
import sys
import time
from datetime import datetime

from memtracks import Memory
from memtracks.config import MemoryConfig


def main() -> None:
    path, command, args = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    if args.get("no_close"):
        mem = Memory(path, config=MemoryConfig(snapshot_min=1, snapshot_after_rebuild=3))
        run(mem, command, args)
        mem.store.close()  # not close(): leaves the snapshots as they are
        return
    with Memory(path, config=MemoryConfig(snapshot_min=1)) as mem:
        run(mem, command, args)


def run(mem: Memory, command: str, args: dict) -> None:
    if "go" in args:
        print("ready", flush=True)
        while not os.path.exists(args["go"]):
            time.sleep(0.005)
    if command == "write":
        results = mem.write_many(args["turns"])
        print(json.dumps({"written": sum(not r.duplicate for r in results)}))
    elif command == "forget":
        print(json.dumps(mem.forget(args["user_id"], turn_ids=args["turn_ids"]).counts()))
    elif command == "retrieve":
        recall = mem.retrieve(args["question"], user_id=args["user_id"], now=datetime.fromisoformat(args["now"]))
        print(json.dumps({"cards": [c.text for c in recall.cards], "snapshot_loads": mem.indexes.snapshot_loads}))


if __name__ == "__main__":
    main()
