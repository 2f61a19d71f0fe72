"""pyzmq's own test suite run against purezmq (see harness.py)."""
