"""Utilities with pyzmq's module paths (`zmq.utils.monitor`, ...)."""
