"""zmq.auth with pyzmq's API: certificates, Authenticator policies, the
ThreadAuthenticator on real sockets, and the AsyncioAuthenticator.

The socket scenarios follow pyzmq's own tests/test_auth.py (allow, deny,
PLAIN, CURVE with certificates, CURVE_ALLOW_ANY, callbacks, User-Id) with
blocking sockets; the asyncio ones run when purezmq.asyncio exists."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("nacl")

import zmq.auth as pyzmq_auth

import purezmq as zmq
import purezmq.auth
from purezmq.auth import CURVE_ALLOW_ANY, Authenticator
from purezmq.auth.thread import ThreadAuthenticator
from purezmq.utils import z85

from .helpers import last_endpoint


# ------------------------------------------------------------------ certificates
@pytest.fixture
def certs(tmp_path: Path) -> tuple[Path, Path]:
    """pyzmq's layout: public certificates in one directory, secret in another."""
    keys, public, secret = tmp_path / "certificates", tmp_path / "public", tmp_path / "private"
    for d in (keys, public, secret):
        d.mkdir()
    for name in ("server", "client"):
        purezmq.auth.create_certificates(keys, name)
    for f in keys.iterdir():
        shutil.move(str(f), public if f.suffix == ".key" else secret)
    return public, secret


def load(secret_dir: Path, name: str) -> tuple[bytes, bytes]:
    public, secret = purezmq.auth.load_certificate(secret_dir / f"{name}.key_secret")
    assert secret is not None
    return public, secret


def test_certificates_round_trip(certs: tuple[Path, Path]) -> None:
    public_dir, secret_dir = certs
    public, secret = load(secret_dir, "server")
    assert zmq.curve_public(secret) == public
    assert purezmq.auth.load_certificate(public_dir / "server.key") == (public, None)
    assert set(purezmq.auth.load_certificates(public_dir)) == {
        public,
        load(secret_dir, "client")[0],
    }


def test_secret_certificates_are_private(certs: tuple[Path, Path]) -> None:
    _, secret_dir = certs
    for f in secret_dir.iterdir():
        assert stat.S_IMODE(f.stat().st_mode) == 0o600


def test_certificates_interchange_with_pyzmq(tmp_path: Path) -> None:
    _, ours_secret = purezmq.auth.create_certificates(tmp_path, "ours")
    _, theirs_secret = pyzmq_auth.create_certificates(tmp_path, "theirs")
    assert pyzmq_auth.load_certificate(ours_secret) == purezmq.auth.load_certificate(ours_secret)
    assert purezmq.auth.load_certificate(theirs_secret) == pyzmq_auth.load_certificate(
        theirs_secret
    )
    assert purezmq.auth.load_certificates(tmp_path) == pyzmq_auth.load_certificates(tmp_path)


def test_certificate_metadata(tmp_path: Path) -> None:
    _, secret_file = purezmq.auth.create_certificates(tmp_path, "m", metadata={"email": "a@b.c"})
    text = Path(secret_file).read_text()
    assert "metadata\n    email = a@b.c\n" in text


def test_load_certificate_errors(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        purezmq.auth.load_certificate(tmp_path / "missing.key")
    (tmp_path / "empty.key").write_text("# nothing\n")
    with pytest.raises(ValueError):
        purezmq.auth.load_certificate(tmp_path / "empty.key")
    with pytest.raises(OSError):
        purezmq.auth.load_certificates(tmp_path / "nope")


# ------------------------------------------------------------------ policies
class FakeSocket:
    def __init__(self) -> None:
        self.sent: list[list[bytes]] = []

    def send_multipart(self, msg: list[bytes]) -> None:
        self.sent.append(msg)


@pytest.fixture
def auth() -> Authenticator:
    a = Authenticator(context=object())
    a.zap_socket = FakeSocket()
    return a


def ask(auth: Authenticator, *frames: bytes) -> list[bytes]:
    asyncio.run(auth.handle_zap_message(list(frames)))
    reply: list[bytes] = auth.zap_socket.sent.pop()
    assert reply[:2] == [b"1.0", frames[1] if len(frames) > 1 else b""]
    return reply[2:]


def request(mechanism: bytes, *credentials: bytes, address: bytes = b"127.0.0.1") -> list[bytes]:
    return [b"1.0", b"7", b"", address, b"", mechanism, *credentials]


def test_null_passes_until_denied(auth: Authenticator) -> None:
    assert ask(auth, *request(b"NULL")) == [b"200", b"OK", b"anonymous", b""]
    auth.deny("127.0.0.1")
    assert ask(auth, *request(b"NULL"))[:2] == [b"400", b"Address denied"]
    assert ask(auth, *request(b"NULL", address=b"10.0.0.1"))[0] == b"200"


def test_allow_list(auth: Authenticator) -> None:
    auth.allow("10.0.0.1")
    assert ask(auth, *request(b"NULL"))[:2] == [b"400", b"Address not allowed"]
    assert ask(auth, *request(b"NULL", address=b"10.0.0.1"))[0] == b"200"
    with pytest.raises(ValueError):
        auth.deny("10.0.0.2")


def test_plain_policies(auth: Authenticator) -> None:
    assert ask(auth, *request(b"PLAIN", b"admin", b"pw"))[:2] == [b"400", b"No passwords defined"]
    auth.configure_plain("*", {"admin": "pw"})
    assert ask(auth, *request(b"PLAIN", b"admin", b"pw")) == [b"200", b"OK", b"admin", b""]
    assert ask(auth, *request(b"PLAIN", b"admin", b"px"))[:2] == [b"400", b"Invalid password"]
    assert ask(auth, *request(b"PLAIN", b"eve", b"pw"))[:2] == [b"400", b"Invalid username"]
    other = [b"1.0", b"7", b"other", b"127.0.0.1", b"", b"PLAIN", b"admin", b"pw"]
    assert ask(auth, *other)[:2] == [b"400", b"Invalid domain"]
    assert ask(auth, *request(b"PLAIN", b"admin"))[:2] == [b"400", b"Invalid credentials"]


def test_curve_policies(auth: Authenticator, certs: tuple[Path, Path]) -> None:
    public_dir, secret_dir = certs
    client_public, _ = load(secret_dir, "client")
    key = z85.decode(client_public)
    assert ask(auth, *request(b"CURVE", key))[:2] == [b"400", b"Unknown domain"]
    auth.configure_curve("*", public_dir)
    assert ask(auth, *request(b"CURVE", key)) == [b"200", b"OK", client_public, b""]
    assert ask(auth, *request(b"CURVE", bytes(32)))[:2] == [b"400", b"Unknown key"]
    auth.configure_curve("*", CURVE_ALLOW_ANY)
    assert ask(auth, *request(b"CURVE", bytes(32)))[0] == b"200"
    # pyzmq's documented customisation: replace the method on the instance.
    setattr(auth, "curve_user_id", lambda k: "custom")  # noqa: B010
    assert ask(auth, *request(b"CURVE", key))[2] == b"custom"


def test_curve_callbacks(auth: Authenticator) -> None:
    class Provider:
        def callback(self, domain: str, key: bytes) -> bool:
            return key == z85.encode(b"k" * 32)

    class AsyncProvider:
        async def callback(self, domain: str, key: bytes) -> bool:
            await asyncio.sleep(0)
            return key == z85.encode(b"k" * 32)

    for provider in (Provider(), AsyncProvider()):
        auth.configure_curve_callback("*", provider)
        assert ask(auth, *request(b"CURVE", b"k" * 32))[0] == b"200"
        assert ask(auth, *request(b"CURVE", b"x" * 32))[:2] == [b"400", b"Unknown key"]


def test_malformed_requests(auth: Authenticator) -> None:
    assert ask(auth, b"1.0", b"7")[:2] == [b"400", b"Not enough frames"]
    assert ask(auth, b"2.0", b"7", b"", b"", b"", b"NULL")[:2] == [b"400", b"Invalid version"]
    asyncio.run(auth.handle_zap_message([b"x"]))  # too short to answer: logged only
    assert auth.zap_socket.sent == []


def test_passwords_are_never_logged(auth: Authenticator, caplog: pytest.LogCaptureFixture) -> None:
    auth.configure_plain("*", {"admin": "correct horse"})
    with caplog.at_level(logging.DEBUG, logger="zmq.auth"):
        ask(auth, *request(b"PLAIN", b"admin", b"correct horse"))
        ask(auth, *request(b"PLAIN", b"admin", b"wrong battery"))
    assert "correct horse" not in caplog.text and "wrong battery" not in caplog.text


# ------------------------------------------------------------------ sockets
@pytest.fixture
def thread_auth(ctx: zmq.Context) -> Iterator[ThreadAuthenticator]:
    a = ThreadAuthenticator(ctx)
    a.start()
    assert a.is_alive()
    yield a
    a.stop()
    assert not a.is_alive()


def can_connect(server: zmq.Socket, client: zmq.Socket, timeout: int = 1000) -> bool:
    """pyzmq's test_auth.can_connect, with blocking sockets."""
    server.bind("tcp://127.0.0.1:*")
    client.connect(last_endpoint(server))
    if not server.poll(timeout, zmq.POLLOUT):
        return False
    server.send_multipart([b"Hello World"], zmq.NOBLOCK)
    if not client.poll(timeout):
        return False
    assert client.recv_multipart(zmq.NOBLOCK) == [b"Hello World"]
    return True


@pytest.fixture
def push_pull(ctx: zmq.Context) -> Iterator[tuple[zmq.Socket, zmq.Socket]]:
    server, client = ctx.socket(zmq.PUSH), ctx.socket(zmq.PULL)
    for s in (server, client):
        s.linger = 0
    yield server, client
    server.close()
    client.close()


def curve_pair(
    server: zmq.Socket, client: zmq.Socket, secret_dir: Path, client_key: str | None = "ok"
) -> None:
    server_public, server_secret = load(secret_dir, "server")
    client_public, client_secret = load(secret_dir, "client")
    server.curve_publickey = server_public
    server.curve_secretkey = server_secret
    server.curve_server = True
    if client_key is not None:
        client.curve_publickey = client_public
        client.curve_secretkey = client_secret
        client.curve_serverkey = server_public if client_key == "ok" else zmq.curve_keypair()[0]


def test_thread_null_with_domain(
    thread_auth: ThreadAuthenticator, push_pull: tuple[zmq.Socket, zmq.Socket]
) -> None:
    server, client = push_pull
    server.zap_domain = b"global"
    assert can_connect(server, client)


def test_thread_deny(
    thread_auth: ThreadAuthenticator, push_pull: tuple[zmq.Socket, zmq.Socket]
) -> None:
    thread_auth.deny("127.0.0.1")
    server, client = push_pull
    server.zap_domain = b"global"
    assert not can_connect(server, client, timeout=100)


def test_thread_allow(
    thread_auth: ThreadAuthenticator, push_pull: tuple[zmq.Socket, zmq.Socket]
) -> None:
    thread_auth.allow("127.0.0.1")
    server, client = push_pull
    server.zap_domain = b"global"
    assert can_connect(server, client)


@pytest.mark.parametrize(
    ("configured", "password", "success"),
    [(True, "correct", True), (False, "correct", False), (True, "incorrect", False)],
)
def test_thread_plain(
    thread_auth: ThreadAuthenticator,
    push_pull: tuple[zmq.Socket, zmq.Socket],
    configured: bool,
    password: str,
    success: bool,
) -> None:
    server, client = push_pull
    server.plain_server = True
    client.plain_username = b"admin"
    client.plain_password = password.encode()
    if configured:
        thread_auth.configure_plain(domain="*", passwords={"admin": "correct"})
    assert can_connect(server, client, timeout=1000 if success else 100) is success


@pytest.mark.parametrize(
    ("client_key", "location", "success"),
    [
        ("ok", CURVE_ALLOW_ANY, True),
        ("ok", "public", True),
        ("bad", "public", False),
        (None, "public", False),
    ],
)
def test_thread_curve(
    thread_auth: ThreadAuthenticator,
    push_pull: tuple[zmq.Socket, zmq.Socket],
    certs: tuple[Path, Path],
    client_key: str | None,
    location: str,
    success: bool,
) -> None:
    public_dir, secret_dir = certs
    thread_auth.allow("127.0.0.1")
    server, client = push_pull
    curve_pair(server, client, secret_dir, client_key)
    thread_auth.configure_curve("*", public_dir if location == "public" else location)
    assert can_connect(server, client, timeout=1000 if success else 100) is success


@pytest.mark.parametrize("async_", [False, True])
@pytest.mark.parametrize("key", ["ok", "wrong"])
def test_thread_curve_callback(
    thread_auth: ThreadAuthenticator,
    push_pull: tuple[zmq.Socket, zmq.Socket],
    certs: tuple[Path, Path],
    key: str,
    async_: bool,
) -> None:
    _, secret_dir = certs
    expected = load(secret_dir, "client" if key == "ok" else "server")[0]

    class Provider:
        def callback(self, domain: str, client_key: bytes) -> bool:
            return client_key == expected

    class AsyncProvider:
        async def callback(self, domain: str, client_key: bytes) -> bool:
            await asyncio.sleep(0.01)
            return client_key == expected

    thread_auth.allow("127.0.0.1")
    thread_auth.configure_curve_callback(
        credentials_provider=AsyncProvider() if async_ else Provider()
    )
    server, client = push_pull
    curve_pair(server, client, secret_dir)
    assert can_connect(server, client, timeout=1000 if key == "ok" else 200) is (key == "ok")


def test_thread_curve_user_id(
    ctx: zmq.Context, thread_auth: ThreadAuthenticator, certs: tuple[Path, Path]
) -> None:
    public_dir, secret_dir = certs
    thread_auth.allow("127.0.0.1")
    thread_auth.configure_curve("*", public_dir)
    client_public, _ = load(secret_dir, "client")
    pull, push = ctx.socket(zmq.PULL), ctx.socket(zmq.PUSH)
    for s in (pull, push):
        s.linger = 0
        s.rcvtimeo = 5000
    curve_pair(pull, push, secret_dir)
    pull.bind("tcp://127.0.0.1:*")
    push.connect(last_endpoint(pull))
    push.send(b"test")
    frame = pull.recv(copy=False)
    assert frame.bytes == b"test" and frame.get("User-Id") == client_public.decode()
    setattr(thread_auth, "curve_user_id", lambda key: "custom")  # noqa: B010 (as pyzmq documents)
    push2 = ctx.socket(zmq.PUSH)
    push2.linger = 0
    curve_pair(pull, push2, secret_dir)
    push2.connect(last_endpoint(pull))
    push2.send(b"test2")
    frame = pull.recv(copy=False)
    assert frame.bytes == b"test2" and frame.get("User-Id") == "custom"
    for s in (pull, push, push2):
        s.close()


def test_thread_stop_then_plain_null_works(ctx: zmq.Context) -> None:
    auth = ThreadAuthenticator(ctx)
    auth.start()
    auth.stop()
    auth.stop()  # idempotent
    server, client = ctx.socket(zmq.PUSH), ctx.socket(zmq.PULL)
    for s in (server, client):
        s.linger = 0
    assert can_connect(server, client)
    server.close()
    client.close()


def test_thread_pipe_answers_unknown_commands(thread_auth: ThreadAuthenticator) -> None:
    thread_auth.pipe.send(b"WHAT")
    assert thread_auth.pipe.poll(2000)
    assert thread_auth.pipe.recv() == b"ERROR"
    assert thread_auth.is_alive()


# ------------------------------------------------------------------ asyncio
def test_asyncio_authenticator(certs: tuple[Path, Path]) -> None:
    zmq_asyncio = pytest.importorskip("purezmq.asyncio")
    from purezmq.auth.asyncio import AsyncioAuthenticator

    public_dir, secret_dir = certs

    async def main() -> dict[str, Any]:
        actx = zmq_asyncio.Context()
        auth = AsyncioAuthenticator(actx)
        auth.start()
        auth.allow("127.0.0.1")
        auth.configure_curve("*", public_dir)
        server, client = actx.socket(zmq.PULL), actx.socket(zmq.PUSH)
        for s in (server, client):
            s.linger = 0
        curve_pair(server, client, secret_dir)
        server.bind("tcp://127.0.0.1:*")
        client.connect(last_endpoint(server))
        await client.send(b"async hello")
        frame = await asyncio.wait_for(server.recv(copy=False), 5)
        result = {"data": frame.bytes, "user": frame.get("User-Id")}
        auth.stop()
        server.close()
        client.close()
        actx.term()
        return result

    result = asyncio.run(main())
    assert result == {"data": b"async hello", "user": load(secret_dir, "client")[0].decode()}


def test_asyncio_authenticator_loop_argument_is_deprecated() -> None:
    from purezmq.auth.asyncio import AsyncioAuthenticator

    with pytest.warns(DeprecationWarning):
        AsyncioAuthenticator(context=object(), loop=object())


def test_module_layout_matches_pyzmq() -> None:
    import purezmq.auth.asyncio
    import purezmq.auth.base
    import purezmq.auth.certs

    for name in ("Authenticator", "CURVE_ALLOW_ANY", "create_certificates"):
        assert hasattr(purezmq.auth, name)
    assert purezmq.auth.thread.ThreadAuthenticator.__mro__[1] is Authenticator
    assert os.path.basename(purezmq.auth.base.__file__) == "base.py"
