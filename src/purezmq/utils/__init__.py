"""purezmq internals."""
