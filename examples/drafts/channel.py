"""CHANNEL: PAIR for single-part messages, here between two threads."""

import threading

import purezmq as zmq

ctx = zmq.Context()
left = ctx.socket(zmq.CHANNEL)
left.bind("inproc://channel")


def right_side() -> None:
    right = ctx.socket(zmq.CHANNEL)
    right.connect("inproc://channel")
    for _ in range(3):
        right.send(right.recv() + b"-pong")
    right.close()


t = threading.Thread(target=right_side)
t.start()
for i in range(3):
    left.send(b"ping-%d" % i)
    print(left.recv().decode())
t.join()
left.close()
ctx.term()
