"""How many loop turns a message costs: the latency path of purezmq.asyncio.

A reply read by the loop completes the awaiting future within the readiness
callback that read it, and a task's send is written when the task sends, not
by a callback of the loop's next iteration (`AsyncioReactor.defer` and
`between_callbacks`). Counted, never timed: loop iterations and what reached
the peer while the loop could not run.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

import purezmq as zmq
import purezmq.asyncio as zaio

Run = Callable[[Any], Any]


async def _connected_dealer(ctx: zaio.Context, router: zmq.Socket) -> zaio.Socket:
    """An asyncio DEALER whose connection to `router` (threaded) is up."""
    dealer: zaio.Socket = ctx.socket(zmq.DEALER)
    dealer.connect(router.get(zmq.LAST_ENDPOINT).decode())
    await dealer.send(b"hello")
    for _ in range(500):
        if router.poll(0):
            break
        await asyncio.sleep(0.01)
    assert router.recv_multipart()[1] == b"hello"
    return dealer


@pytest.mark.parametrize("transport", ["tcp", "ipc"])
def test_a_send_is_written_before_the_loop_turns(run: Run, transport: str, ipc_dir: str) -> None:
    """The peer gets the message while the loop is blocked right after the send."""
    sync_ctx = zmq.Context()
    router = sync_ctx.socket(zmq.ROUTER)
    router.bind("tcp://127.0.0.1:*" if transport == "tcp" else f"ipc://{ipc_dir}/turns")

    async def main() -> None:
        with zaio.Context() as ctx:
            dealer = await _connected_dealer(ctx, router)
            await asyncio.sleep(0.01)  # not a burst: nothing to batch
            await dealer.send(b"now")
            # The loop cannot run while this blocks: only a write made by the
            # send itself can reach the router.
            assert router.poll(5000), "the send waited for the loop's next turn"
            assert router.recv_multipart()[1] == b"now"
            dealer.close(linger=0)

    try:
        run(main())
    finally:
        router.close(linger=0)
        sync_ctx.term()


def test_a_round_trip_takes_two_loop_turns() -> None:
    """REQ on the loop, REP in another thread: one loop iteration for the
    reply's arrival (which completes the receive) and one for the task."""
    trips = 200
    sync_ctx = zmq.Context()
    rep = sync_ctx.socket(zmq.REP)
    rep.bind("tcp://127.0.0.1:*")
    endpoint = rep.get(zmq.LAST_ENDPOINT).decode()

    def echo() -> None:
        for _ in range(trips + 1):
            msg = rep.recv()
            # Not a burst: a send less than the engine's SPARSE_GAP (20 µs)
            # after the previous write is left to the loop's next turn, to
            # batch (it happened here, with this peer in the same process).
            time.sleep(0.0002)
            rep.send(msg)

    peer = threading.Thread(target=echo, daemon=True)
    peer.start()
    loop = asyncio.new_event_loop()
    selector = loop._selector  # type: ignore[attr-defined]
    real_select = selector.select
    turns = [0]

    def counting_select(timeout: float | None = None) -> Any:
        turns[0] += 1
        return real_select(timeout)

    async def main() -> int:
        with zaio.Context() as ctx:
            req = ctx.socket(zmq.REQ)
            req.connect(endpoint)
            await req.send(b"warm-up")
            assert await req.recv() == b"warm-up"
            selector.select = counting_select
            for i in range(trips):
                await req.send(b"%d" % i)
                assert await req.recv() == b"%d" % i
            selector.select = real_select
            req.close(linger=0)
        return turns[0]

    try:
        counted = loop.run_until_complete(asyncio.wait_for(main(), 20))
    finally:
        loop.close()
        peer.join(5)
        rep.close(linger=0)
        sync_ctx.term()
    # Two per round trip; before, four (the write and the receive's
    # completion each took a callback of an iteration of their own).
    assert counted <= 2.5 * trips, f"{counted / trips:.2f} loop turns per round trip"
