"""The one clock purezmq reads: monotonic seconds as a float.

The sans-I/O layers never read a clock; the layers above pass `monotonic()`
values down. Keeping the call in one place lets tests substitute a fake.
"""

from __future__ import annotations

import time

monotonic = time.monotonic
