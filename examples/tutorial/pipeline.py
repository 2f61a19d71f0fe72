"""Pipeline: a ventilator PUSHes tasks to workers, which PUSH results to a sink.

PUSH deals messages out to its connected peers in turn (load balancing);
PULL takes from all of its peers in turn (fair queuing). Adding a worker is
just connecting one more socket: nobody else changes.
"""

import threading

import purezmq as zmq

ctx = zmq.Context()
TASKS = "inproc://tasks"  # inproc: threads of one process; tcp:// or ipc:// across processes
RESULTS = "inproc://results"

ventilator = ctx.socket(zmq.PUSH)
ventilator.bind(TASKS)
sink = ctx.socket(zmq.PULL)
sink.bind(RESULTS)


def worker() -> None:
    # One socket per thread: sockets are not shared between threads.
    tasks = ctx.socket(zmq.PULL)
    tasks.connect(TASKS)
    results = ctx.socket(zmq.PUSH)
    results.connect(RESULTS)
    try:
        while True:
            n = int(tasks.recv_string())
            results.send_string(str(n * n))
    except zmq.ContextTerminated:  # ctx.term() below: time to stop
        tasks.close()
        results.close()


workers = [threading.Thread(target=worker) for _ in range(3)]
for w in workers:
    w.start()

for n in range(1, 31):
    ventilator.send_string(str(n))
total = sum(int(sink.recv_string()) for _ in range(30))
print(f"30 results, sum of squares 1..30 = {total}")

ventilator.close()
sink.close()
ctx.term()  # wakes the workers with ContextTerminated, waits for their sockets to close
for w in workers:
    w.join()
