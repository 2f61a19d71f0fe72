"""Unit tests of the sans-I/O ZMTP layer (purezmq._zmtp)."""
