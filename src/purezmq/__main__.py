"""``python -m purezmq``: the ``purezmq`` command line (see purezmq.cli)."""

import sys

from purezmq.cli import main

sys.exit(main())
