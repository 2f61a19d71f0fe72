"""Request/reply on asyncio: a REP service and a REQ client on one loop."""

from __future__ import annotations

import asyncio
import sys

import purezmq as zmq
import purezmq.asyncio as zaio


async def service(rep: zaio.Socket, count: int) -> None:
    for _ in range(count):
        question = await rep.recv_json()
        await rep.send_json({"sum": sum(question["numbers"])})


async def main() -> int:
    with zaio.Context() as ctx:
        rep = ctx.socket(zmq.REP)
        rep.bind("ipc://*")
        req = ctx.socket(zmq.REQ)
        req.connect(rep.get(zmq.LAST_ENDPOINT).decode())
        task = asyncio.create_task(service(rep, 10))
        ok = True
        for i in range(10):
            await req.send_json({"numbers": list(range(i))})
            answer = await req.recv_json()
            ok = ok and answer == {"sum": sum(range(i))}
        await task
    print("10 requests answered" if ok else "wrong answers")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
