"""An asyncio ROUTER server answering many DEALER clients at once.

One coroutine serves all clients through a ROUTER; each client is a DEALER
in its own task, with several requests in flight. Everything runs on one
event loop: the loop itself reads and writes the tcp connections.
"""

from __future__ import annotations

import asyncio
import sys

import purezmq as zmq
import purezmq.asyncio as zaio

CLIENTS = 50
REQUESTS = 20


async def server(router: zaio.Socket) -> None:
    while True:
        client, request = await router.recv_multipart()
        await router.send_multipart([client, request.upper()])


async def client(ctx: zaio.Context, endpoint: str, n: int) -> int:
    dealer = ctx.socket(zmq.DEALER)
    dealer.routing_id = b"client-%d" % n
    dealer.connect(endpoint)
    for i in range(REQUESTS):  # fire all requests, then collect the answers
        await dealer.send(b"request %d from %d" % (i, n))
    answers = [await dealer.recv() for _ in range(REQUESTS)]
    dealer.close()
    expected = [b"REQUEST %d FROM %d" % (i, n) for i in range(REQUESTS)]
    return sum(a == e for a, e in zip(answers, expected, strict=True))


async def main() -> int:
    with zaio.Context() as ctx:
        router = ctx.socket(zmq.ROUTER)
        router.bind("tcp://127.0.0.1:*")
        endpoint = router.get(zmq.LAST_ENDPOINT).decode()
        serving = asyncio.create_task(server(router))
        good = await asyncio.gather(*(client(ctx, endpoint, n) for n in range(CLIENTS)))
        serving.cancel()
    total = sum(good)
    print(f"{CLIENTS} DEALER clients, {total}/{CLIENTS * REQUESTS} answers correct")
    return 0 if total == CLIENTS * REQUESTS else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
