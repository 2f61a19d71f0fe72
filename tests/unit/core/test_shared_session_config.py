"""Connect-side session configs shared between sockets (issue 14, set-up).

A socket whose options are all its type's defaults gets, for an endpoint
such a socket connected to before, the config that connect made
(`Endpoints._config`). Anything that makes the config differ - an option
set, a CONNECT_ROUTING_ID, another endpoint or socket type, a security
mechanism - must make a config of its own. The endpoints are never
listened on: connect() builds its session at once, connected or not.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import purezmq as zmq
from purezmq._core.session_config import SessionConfig

_EP = "tcp://127.0.0.1:1"  # nothing listens: the connect keeps retrying


@pytest.fixture
def ctx() -> Iterator[zmq.Context]:
    c = zmq.Context()
    yield c
    c.destroy(linger=0)


def _config(s: zmq.Socket) -> SessionConfig:
    sessions = s._core.sessions.snapshot()
    assert len(sessions) == 1
    return sessions[0].config


def _connected(ctx: zmq.Context, kind: int = zmq.DEALER, ep: str = _EP) -> zmq.Socket:
    s = ctx.socket(kind)
    s.connect(ep)
    return s


def test_default_sockets_share_the_config_of_an_endpoint(ctx: zmq.Context) -> None:
    first = _config(_connected(ctx))
    second = _config(_connected(ctx))
    assert second is first
    assert (first.socket_type, first.endpoint, first.connect_side) == ("DEALER", _EP, True)


def test_a_set_option_gives_a_config_of_its_own(ctx: zmq.Context) -> None:
    shared = _config(_connected(ctx))
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.SNDHWM, 7)
    s.connect(_EP)
    own = _config(s)
    assert own is not shared
    assert own.sndhwm == 7
    # ...and the shared one is unchanged for the next default socket.
    assert _config(_connected(ctx)) is shared
    assert shared.sndhwm == 1000


def test_a_connect_routing_id_gives_a_config_of_its_own(ctx: zmq.Context) -> None:
    shared = _config(_connected(ctx, zmq.ROUTER))
    s = ctx.socket(zmq.ROUTER)
    s.setsockopt(zmq.CONNECT_ROUTING_ID, b"peer-1")
    s.connect(_EP)
    own = _config(s)
    assert own is not shared
    assert own.connect_routing_id == b"peer-1"


def test_endpoint_and_type_are_part_of_the_key(ctx: zmq.Context) -> None:
    dealer = _config(_connected(ctx))
    elsewhere = _config(_connected(ctx, ep="tcp://127.0.0.1:2"))
    push = _config(_connected(ctx, zmq.PUSH))
    assert elsewhere is not dealer and elsewhere.endpoint == "tcp://127.0.0.1:2"
    assert push is not dealer and push.socket_type == "PUSH"


def test_a_security_mechanism_is_never_shared(ctx: zmq.Context) -> None:
    def plain_client() -> SessionConfig:
        s = ctx.socket(zmq.DEALER)
        s.plain_username = b"user"
        s.plain_password = b"secret"
        s.connect(_EP)
        return _config(s)

    a, b = plain_client(), plain_client()
    assert a.mechanism_factory is not None
    assert a is not b


def test_default_sockets_share_their_types_tuning(ctx: zmq.Context) -> None:
    """The OS settings (keepalive, buffers, TOS) of a socket with its type's
    defaults are read once per type; a socket that sets one gets its own."""
    a = ctx.socket(zmq.DEALER)._core.endpoints._tuning()
    b = ctx.socket(zmq.DEALER)._core.endpoints._tuning()
    assert a is b and (a.sndbuf, a.rcvbuf, a.tos) == (-1, -1, 0)
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.SNDBUF, 65536)
    s.setsockopt(zmq.TCP_KEEPALIVE, 1)
    own = s._core.endpoints._tuning()
    assert own.sndbuf == 65536 and own.keepalive[0] == 1
    assert ctx.socket(zmq.DEALER)._core.endpoints._tuning() is a
    assert (a.sndbuf, a.keepalive[0]) == (-1, -1)
