"""Logging over ZeroMQ: `handlers.PUBHandler` publishes log records on a PUB socket;
``python -m purezmq.log URL`` prints what such a publisher sends."""
