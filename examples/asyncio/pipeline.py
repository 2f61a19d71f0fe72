"""The pipeline pattern on asyncio: ventilator -> workers -> sink, in tasks.

A PUSH ventilator spreads tasks over PULL workers (load balancing); the
workers PUSH results to one PULL sink (fair queuing); a TaskGroup runs it.
"""

from __future__ import annotations

import asyncio
import sys

import purezmq as zmq
import purezmq.asyncio as zaio

TASKS = 300
WORKERS = 4


async def worker(ctx: zaio.Context, tasks_ep: str, results_ep: str) -> None:
    pull = ctx.socket(zmq.PULL)
    pull.connect(tasks_ep)
    push = ctx.socket(zmq.PUSH)
    push.connect(results_ep)
    while (n := int(await pull.recv())) >= 0:
        await push.send(b"%d" % (n * n))
    pull.close()
    push.close()


async def main() -> int:
    with zaio.Context() as ctx:
        vent = ctx.socket(zmq.PUSH)
        vent.bind("inproc://tasks")
        sink = ctx.socket(zmq.PULL)
        sink.bind("inproc://results")
        async with asyncio.TaskGroup() as tg:
            for _ in range(WORKERS):
                tg.create_task(worker(ctx, "inproc://tasks", "inproc://results"))
            for n in range(TASKS):
                await vent.send(b"%d" % n)
            total = sum([int(await sink.recv()) for _ in range(TASKS)])
            for _ in range(WORKERS):
                await vent.send(b"-1")  # one stop signal per worker
    expected = sum(n * n for n in range(TASKS))
    print(f"{TASKS} tasks over {WORKERS} workers: sum of squares {total} (expected {expected})")
    return 0 if total == expected else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
