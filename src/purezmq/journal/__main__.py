"""``python -m purezmq.journal``: see purezmq.journal.cli."""

from purezmq.journal.cli import main

raise SystemExit(main())
