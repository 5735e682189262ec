"""``python -m memtracks``: the command line."""

import sys

from memtracks.interfaces.cli import main

sys.exit(main())
