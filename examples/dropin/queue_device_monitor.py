"""A pyzmq program, unchanged: a queue device with a monitored backend.

    client (REQ) -> [ROUTER | MonitoredQueue device | DEALER] -> worker (REP)
                                    |
                                    +-> PUB: every message, prefixed "in"/"out"

The worker's socket is also watched with the socket monitor
(``get_monitor_socket`` / ``recv_monitor_message``), so the script prints the
connection events libzmq would report.

It is written against pyzmq (``import zmq``). Run it with pyzmq, or with
purezmq behind a ``zmq`` shim (tests/dropin/test_examples.py does both and
compares the output)::

    python examples/dropin/queue_device_monitor.py
"""

import threading

import zmq
from zmq.devices import ThreadMonitoredQueue
from zmq.utils.monitor import recv_monitor_message

N = 5


def worker(ctx, url, ready):
    rep = ctx.socket(zmq.REP)
    events = rep.get_monitor_socket(zmq.EVENT_CONNECTED | zmq.EVENT_HANDSHAKE_SUCCEEDED)
    rep.connect(url)
    seen = set()
    while len(seen) < 2:  # connected, then the ZMTP handshake
        seen.add(zmq.Event(recv_monitor_message(events)["event"]).name)
    ready.set()
    while True:
        request = rep.recv()
        rep.send(request.upper())
        if request == b"stop":
            break
    rep.disable_monitor()
    rep.close()
    print("worker events:", ", ".join(sorted(seen)))


def main():
    ctx = zmq.Context()
    device = ThreadMonitoredQueue(zmq.ROUTER, zmq.DEALER, zmq.PUB, b"in", b"out")
    device.context_factory = zmq.Context  # the device gets its own context
    front = device.bind_in_to_random_port("tcp://127.0.0.1")
    back = device.bind_out_to_random_port("tcp://127.0.0.1")
    mon_port = device.bind_mon_to_random_port("tcp://127.0.0.1")
    device.start()

    mon = ctx.socket(zmq.SUB)
    mon.subscribe(b"")
    mon.connect(f"tcp://127.0.0.1:{mon_port}")

    ready = threading.Event()
    t = threading.Thread(target=worker, args=(ctx, f"tcp://127.0.0.1:{back}", ready))
    t.start()
    ready.wait(10)

    req = ctx.socket(zmq.REQ)
    req.connect(f"tcp://127.0.0.1:{front}")
    # The monitor is a SUB, a slow joiner: warm up until it hears the device.
    for _ in range(50):
        req.send(b"warm-up")
        req.recv()
        if mon.poll(100):
            break
    while mon.poll(200):
        mon.recv_multipart()
    replies = []
    for i in range(N):
        req.send(f"hello {i}".encode())
        replies.append(req.recv())
    req.send(b"stop")
    req.recv()
    t.join()

    directions = {b"in": 0, b"out": 0}
    while mon.poll(500):
        prefix, *_ = mon.recv_multipart()
        directions[prefix] += 1
    directions[b"in"] -= 1  # the "stop" request and its reply
    directions[b"out"] -= 1
    print("replies:", b" | ".join(replies).decode())
    print(f"monitored: in={directions[b'in']} out={directions[b'out']}")

    for s in (req, mon):
        s.close(linger=0)
    ctx.term()
    device._context.term()  # ends the device thread (ETERM)
    device.join(5)
    print("device stopped:", not device.launcher.is_alive())


if __name__ == "__main__":
    main()
