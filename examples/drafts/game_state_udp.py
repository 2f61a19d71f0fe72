"""A game server broadcasting the state of two rooms with RADIO over udp;
a player's DISH joins the room it plays in and sees only that room.

udp://HOST:PORT is unicast; with a multicast group, every DISH on the
network that binds udp://GROUP:PORT (or udp://IFACE;GROUP:PORT) gets each
datagram once. A datagram is one message: group length, group, body."""

import json
import socket

import purezmq as zmq

with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:  # a free udp port
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]

ctx = zmq.Context()
player = ctx.socket(zmq.DISH)  # a DISH binds udp
player.rcvtimeo = 2000
player.bind(f"udp://127.0.0.1:{port}")
player.join("room-1")

game = ctx.socket(zmq.RADIO)  # a RADIO connects udp
game.connect(f"udp://127.0.0.1:{port}")
for tick in range(3):
    for room, x in (("room-1", tick), ("room-2", 10 * tick)):
        state = {"tick": tick, "ball": [x, 2 * x]}
        game.send(json.dumps(state).encode(), group=room)

for _ in range(3):
    update = player.recv(copy=False)
    print(update.group, json.loads(update.bytes))

player.close()
game.close()
ctx.term()
