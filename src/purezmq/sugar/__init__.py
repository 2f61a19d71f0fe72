"""pyzmq's "sugar" layer: the pure-Python API classes."""
