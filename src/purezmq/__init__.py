"""purezmq: ZeroMQ in pure Python, with pyzmq's API and libzmq's wire protocol."""

__version__ = "0.1.0"
