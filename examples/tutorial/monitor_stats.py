"""Watching a socket: its connection events, and its statistics.

Every socket can report what happens to its connections (connected, handshake
done, disconnected...) on a monitor socket, as in libzmq. purezmq also keeps
counters per socket and per connection, which libzmq does not:
Socket.get_stats() returns them as a dict (see docs/statistics.md).
"""

import purezmq as zmq
from purezmq.utils.monitor import recv_monitor_message

ctx = zmq.Context()
pull = ctx.socket(zmq.PULL)
port = pull.bind_to_random_port("tcp://127.0.0.1")

push = ctx.socket(zmq.PUSH)
events = push.get_monitor_socket()  # before connecting, so no event is missed
push.connect(f"tcp://127.0.0.1:{port}")

while True:
    event = recv_monitor_message(events)
    name = zmq.Event(event["event"]).name
    if name != "CONNECT_DELAYED":  # (connecting, not done yet: shown only sometimes)
        print("push:", name, event["endpoint"].decode().rsplit(":", 1)[0])
    if event["event"] == zmq.EVENT_HANDSHAKE_SUCCEEDED:
        break

for _ in range(5):
    push.send(b"x" * 100)
for _ in range(5):
    pull.recv()

stats = pull.get_stats()
print(f"pull: {stats['msgs_in']} messages in, {len(stats['connections'])} connection")

events.close()
push.close()
pull.close()
ctx.term()
