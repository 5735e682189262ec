"""A second process on the same memory file, for the multi-process tests.

python tests/proc_memory.py DB COMMAND JSON-ARGS   ->  prints a JSON result
"""

from __future__ import annotations

import json
import sys
from datetime import datetime

from memtracks import Memory
from memtracks.config import MemoryConfig


def main() -> None:
    path, command, args = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    with Memory(path, config=MemoryConfig(snapshot_min=1)) as mem:
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
