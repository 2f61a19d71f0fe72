"""Publish/subscribe on asyncio, with a timeout per receive (asyncio.timeout).

An XPUB publisher waits until both subscriptions arrived (no slow joiner),
then publishes; each SUB gets exactly its prefix.
"""

from __future__ import annotations

import asyncio
import sys

import purezmq as zmq
import purezmq.asyncio as zaio


async def collect(sub: zaio.Socket) -> list[bytes]:
    got = []
    while True:
        try:
            async with asyncio.timeout(0.5):
                got.append(await sub.recv())
        except TimeoutError:
            return got


async def main() -> int:
    with zaio.Context() as ctx:
        pub = ctx.socket(zmq.XPUB)
        pub.bind("tcp://127.0.0.1:*")
        endpoint = pub.get(zmq.LAST_ENDPOINT).decode()
        subs = {}
        for topic in (b"weather.", b"news."):
            sub = ctx.socket(zmq.SUB)
            sub.subscribe(topic)
            sub.connect(endpoint)
            subs[topic] = sub
        for _ in subs:  # the subscriptions arrive as messages on an XPUB
            await pub.recv()
        for i in range(5):
            await pub.send(b"weather.%d" % i)
            await pub.send(b"news.%d" % i)
            await pub.send(b"sports.%d" % i)
        results = await asyncio.gather(*(collect(s) for s in subs.values()))
    ok = all(
        got == [b"%s%d" % (topic, i) for i in range(5)]
        for topic, got in zip(subs, results, strict=True)
    )
    for topic, got in zip(subs, results, strict=True):
        print(f"{topic.decode():9s} got {len(got)} messages")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
