"""``python -m purezmq.perf <tool> ...`` (see purezmq.perf)."""

import sys

from purezmq.perf.tools import main

sys.exit(main())
