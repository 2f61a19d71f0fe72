"""Publish-subscribe: a publisher broadcasts, subscribers filter by prefix.

A subscriber receives only what is published after its subscription reached
the publisher ("slow joiner"): messages before that are not queued for it.
An XPUB socket, a PUB that also receives the subscriptions, lets the
publisher wait for its subscriber instead of guessing with a sleep.
"""

import purezmq as zmq

ctx = zmq.Context()
publisher = ctx.socket(zmq.XPUB)
port = publisher.bind_to_random_port("tcp://127.0.0.1")

subscriber = ctx.socket(zmq.SUB)
subscriber.connect(f"tcp://127.0.0.1:{port}")
subscriber.subscribe("weather.")  # a prefix of the first frame
subscriber.subscribe("END")

for _ in range(2):  # each subscription arrives as b"\x01" + prefix
    print("publisher saw a subscription to", publisher.recv()[1:].decode())

for topic, text in [("weather.paris", "21 C"), ("sports.rugby", "24-17"),
                    ("weather.oslo", "3 C"), ("END", "")]:  # fmt: skip
    publisher.send_multipart([topic.encode(), text.encode()])

while True:
    topic, text = (frame.decode() for frame in subscriber.recv_multipart())
    if topic == "END":
        break
    print(f"{topic}: {text}")  # no sports: nobody subscribed to them

subscriber.close()
publisher.close()
ctx.term()
