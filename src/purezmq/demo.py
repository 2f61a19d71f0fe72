"""The classic ZeroMQ topologies, end to end, on purezmq's public API.

Run ``python -m purezmq.demo``. Three scenes, each printing what flowed:

1. Pipeline (tcp): a ventilator PUSHes tasks to workers (PULL), which PUSH
   results to a sink (PULL) - load balanced out, fair-queued in.
2. Pub/sub (ipc): a publisher sends a feed of topics; each subscriber gets
   exactly the prefixes it subscribed to.
3. Request/reply through a queue device (inproc + tcp): REQ clients talk to a
   ROUTER/DEALER proxy that spreads requests over REP workers.

Everything ends by itself and checks its own totals; a mismatch exits 1.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections import Counter

import purezmq as zmq


def _line(text: str) -> None:
    print(text, flush=True)


# ----------------------------------------------------------------- pipeline
def pipeline(ctx: zmq.Context, n_workers: int, n_tasks: int) -> bool:
    _line(f"\n== 1. pipeline over tcp: ventilator -> {n_workers} workers -> sink")
    sink = ctx.socket(zmq.PULL)
    sink_port = sink.bind_to_random_port("tcp://127.0.0.1")
    vent = ctx.socket(zmq.PUSH)
    vent_port = vent.bind_to_random_port("tcp://127.0.0.1")
    done_by: Counter[str] = Counter()

    def worker(name: str) -> None:
        rx = ctx.socket(zmq.PULL)
        rx.connect(f"tcp://127.0.0.1:{vent_port}")
        tx = ctx.socket(zmq.PUSH)
        tx.connect(f"tcp://127.0.0.1:{sink_port}")
        while True:
            task = rx.recv()
            if task == b"STOP":
                break
            n = int(task)
            tx.send_multipart([name.encode(), str(n * n).encode()])
        rx.close()
        tx.close()

    # Watch the ventilator's handshakes, so tasks go out only once every worker
    # is connected and load balancing is fair from the first task.
    mon = vent.get_monitor_socket(zmq.EVENT_HANDSHAKE_SUCCEEDED)
    threads = [threading.Thread(target=worker, args=(f"w{i}",)) for i in range(n_workers)]
    for t in threads:
        t.start()
    for _ in range(n_workers):
        if not mon.poll(10_000):
            _line("   workers did not connect within 10 s")
            return False
        mon.recv_multipart()
    vent.disable_monitor()
    t0 = time.perf_counter()
    for i in range(n_tasks):
        vent.send(str(i).encode())
    total = 0
    for _ in range(n_tasks):
        name, result = sink.recv_multipart()
        done_by[name.decode()] += 1
        total += int(result)
    elapsed = time.perf_counter() - t0
    for _ in range(n_workers):
        vent.send(b"STOP")
    for t in threads:
        t.join()
    expected = sum(i * i for i in range(n_tasks))
    share = ", ".join(f"{k}: {v}" for k, v in sorted(done_by.items()))
    _line(f"   {n_tasks} tasks in {elapsed * 1000:.0f} ms; per worker: {share}")
    _line(f"   sum of squares = {total} (expected {expected})")
    vent.close()
    sink.close()
    return total == expected and sum(done_by.values()) == n_tasks


# ----------------------------------------------------------------- pub/sub
def pubsub(ctx: zmq.Context, n_updates: int) -> bool:
    pub = ctx.socket(zmq.PUB)
    pub.bind("ipc://*")  # a fresh socket path, removed again when the socket closes
    endpoint = pub.get(zmq.LAST_ENDPOINT).decode()
    _line(f"\n== 2. pub/sub over ipc ({endpoint}): filtered subscribers")
    topics = [b"weather.paris", b"weather.oslo", b"sports.chess", b"news"]
    filters = {
        "weather-fan": [b"weather."],
        "oslo-only": [b"weather.oslo"],
        "chess+news": [b"sports.chess", b"news"],
    }
    subs: dict[str, zmq.Socket] = {}
    for name, prefixes in filters.items():
        s = ctx.socket(zmq.SUB)
        for p in prefixes:
            s.subscribe(p)
        s.connect(endpoint)
        subs[name] = s
    _wait_for_subscribers(pub, subs, topics)
    sent: Counter[bytes] = Counter()
    for i in range(n_updates):
        t = topics[i % len(topics)]
        pub.send_multipart([t, str(i).encode()])
        sent[t] += 1
    for t in topics:  # one end marker per topic, so each filter sees its own
        pub.send_multipart([t + b"/END", b""])
    ok = True
    for name, s in subs.items():
        wanted = [t for t in topics if any(t.startswith(f) for f in filters[name])]
        got = _collect(s, {t + b"/END" for t in wanted})
        expected = Counter({t: sent[t] for t in wanted})
        ok = ok and got == expected
        detail = ", ".join(f"{t.decode()}={c}" for t, c in sorted(got.items()))
        shown = ", ".join(f.decode() for f in filters[name])
        verdict = "ok" if got == expected else "MISMATCH"
        _line(f"   {name:11s} subscribed [{shown}]: {detail} [{verdict}]")
        s.close()
    pub.close()
    return ok


def _wait_for_subscribers(
    pub: zmq.Socket, subs: dict[str, zmq.Socket], topics: list[bytes]
) -> None:
    """The slow-joiner problem: a PUB drops what it sends before a subscription
    arrives, so publish probes until every subscriber has seen one."""
    pending = set(subs)
    deadline = time.monotonic() + 10
    while pending and time.monotonic() < deadline:
        for t in topics:
            pub.send_multipart([t, b"probe"])
        for name in list(pending):
            if subs[name].poll(20):
                pending.discard(name)
    for s in subs.values():  # drop the probes
        while s.poll(50):
            s.recv_multipart()


def _collect(sub: zmq.Socket, ends: set[bytes]) -> Counter[bytes]:
    got: Counter[bytes] = Counter()
    while ends:
        topic, body = sub.recv_multipart()
        if topic in ends:
            ends.discard(topic)
        elif body != b"probe":
            got[topic] += 1
    return got


# ----------------------------------------------------------------- req/rep via queue
def request_reply(ctx: zmq.Context, n_clients: int, n_workers: int, n_requests: int) -> bool:
    _line(
        f"\n== 3. request/reply through a queue device: "
        f"{n_clients} REQ -> ROUTER|DEALER -> {n_workers} REP"
    )
    frontend = ctx.socket(zmq.ROUTER)
    port = frontend.bind_to_random_port("tcp://127.0.0.1")
    backend = ctx.socket(zmq.DEALER)
    backend.bind("inproc://demo-workers")
    device = threading.Thread(target=_run_proxy, args=(frontend, backend), daemon=True)
    device.start()
    served: Counter[str] = Counter()
    lock = threading.Lock()
    stop = threading.Event()

    def worker(name: str) -> None:
        rep = ctx.socket(zmq.REP)
        rep.connect("inproc://demo-workers")
        while not stop.is_set():
            if not rep.poll(50):
                continue
            req = rep.recv_string()
            with lock:
                served[name] += 1
            rep.send_string(f"{req.upper()} (by {name})")
        rep.close()

    answers: list[bool] = []

    def client(i: int) -> None:
        req = ctx.socket(zmq.REQ)
        req.connect(f"tcp://127.0.0.1:{port}")
        good = True
        for j in range(n_requests):
            req.send_string(f"hello {i}.{j}")
            reply = req.recv_string()
            good = good and reply.startswith(f"HELLO {i}.{j} (by ")
        with lock:
            answers.append(good)
        req.close()

    workers = [threading.Thread(target=worker, args=(f"rep{i}",)) for i in range(n_workers)]
    clients = [threading.Thread(target=client, args=(i,)) for i in range(n_clients)]
    t0 = time.perf_counter()
    for t in workers + clients:
        t.start()
    for t in clients:
        t.join()
    elapsed = time.perf_counter() - t0
    stop.set()
    for t in workers:
        t.join()
    total = n_clients * n_requests
    share = ", ".join(f"{k}: {v}" for k, v in sorted(served.items()))
    _line(
        f"   {total} round trips in {elapsed * 1000:.0f} ms "
        f"({elapsed / total * 1e6:.0f} us each); served: {share}"
    )
    ok = len(answers) == n_clients and all(answers) and sum(served.values()) == total
    _line(f"   every reply matched its request: {'yes' if ok else 'NO'}")
    frontend.close()
    backend.close()
    return ok


def _run_proxy(frontend: zmq.Socket, backend: zmq.Socket) -> None:
    try:
        zmq.proxy(frontend, backend)
    except zmq.ZMQError:
        pass  # the sockets were closed or the context terminated: the device ends


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=2000)
    parser.add_argument("--updates", type=int, default=4000)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args(argv)
    _line(
        f"purezmq {zmq.__version__} (pure Python, speaks ZMTP 3.1; "
        f"libzmq API level {zmq.zmq_version()})"
    )
    ctx = zmq.Context()
    ctx.linger = 1000
    results = {
        "pipeline": pipeline(ctx, n_workers=3, n_tasks=args.tasks),
        "pub/sub": pubsub(ctx, n_updates=args.updates),
        "req/rep + queue": request_reply(ctx, n_clients=4, n_workers=3, n_requests=args.requests),
    }
    ctx.destroy(linger=0)
    _line("\n== summary")
    for name, ok in results.items():
        _line(f"   {name:16s} {'ok' if ok else 'FAILED'}")
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
