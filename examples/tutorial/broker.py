"""A broker: clients' requests shared among workers through a queue device.

REQ clients connect to a ROUTER (the frontend), REP workers to a DEALER (the
backend), and zmq.proxy moves messages between the two. The ROUTER
remembers which client each request came from (the envelope), so each reply
finds its way back. Clients and workers only know the broker's address.
"""

import threading

import purezmq as zmq

ctx = zmq.Context()
FRONTEND, BACKEND = "inproc://frontend", "inproc://backend"


def broker() -> None:
    frontend = ctx.socket(zmq.ROUTER)
    frontend.bind(FRONTEND)
    backend = ctx.socket(zmq.DEALER)
    backend.bind(BACKEND)
    ready.set()
    try:
        zmq.proxy(frontend, backend)  # runs until the context terminates
    except zmq.ContextTerminated:
        frontend.close()
        backend.close()


def worker() -> None:
    sock = ctx.socket(zmq.REP)
    sock.connect(BACKEND)
    try:
        while True:
            job = sock.recv_string()
            sock.send_string(f"{job} done")
    except zmq.ContextTerminated:
        sock.close()


ready = threading.Event()
threads = [threading.Thread(target=broker)]
threads += [threading.Thread(target=worker) for _ in range(2)]
for t in threads:
    t.start()
ready.wait()  # inproc: bind before connect is simplest

client = ctx.socket(zmq.REQ)
client.connect(FRONTEND)
for n in range(4):
    client.send_string(f"job {n}")
    print(client.recv_string())

client.close()
ctx.term()
for t in threads:
    t.join()
