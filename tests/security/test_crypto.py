"""CURVE keys and the PyNaCl adapter: curve_keypair, curve_public, has("curve"),
and the clear error without the ``purezmq[curve]`` extra."""

from __future__ import annotations

import errno
import subprocess
import sys
from collections.abc import Iterator

import pytest

pytest.importorskip("nacl")

import zmq

import purezmq
from purezmq import _crypto
from purezmq.utils import z85

# libzmq doc/zmq_curve.adoc test keys; libzmq tests/test_sodium.cpp checks
# zmq_curve_public(client secret) == client public (an X25519 known answer).
CLIENT_PUBLIC = b"Yne@$w-vo<fVvi]a<NY6T1ed:M$fCG*[IaLV{hID"
CLIENT_SECRET = b"D:)Q[IlAW!ahhC2ac:9*A}h:p?([4%wOTJ%JR%cs"
SERVER_PUBLIC = b"rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"
SERVER_SECRET = b"JTKVSB%%)wK0E.X)V>+}o?pNmC{O&4W4b!Ni{Lh6"


def test_curve_public_known_answers() -> None:
    assert purezmq.curve_public(CLIENT_SECRET) == CLIENT_PUBLIC
    assert purezmq.curve_public(SERVER_SECRET.decode()) == SERVER_PUBLIC  # str accepted


def test_curve_keypair_is_z85_and_consistent() -> None:
    public, secret = purezmq.curve_keypair()
    assert type(public) is bytes and type(secret) is bytes
    assert len(public) == len(secret) == 40
    assert len(z85.decode(public)) == len(z85.decode(secret)) == 32
    assert purezmq.curve_public(secret) == public
    assert zmq.curve_public(secret) == public  # libzmq agrees


def test_keypairs_are_fresh() -> None:
    assert len({purezmq.curve_keypair()[1] for _ in range(20)}) == 20


@pytest.mark.parametrize("bad", [b"", b"short", CLIENT_SECRET[:39], CLIENT_SECRET + b"0" * 5])
def test_curve_public_refuses_malformed_keys(bad: bytes) -> None:
    with pytest.raises(purezmq.ZMQError) as info:
        purezmq.curve_public(bad)
    assert info.value.errno == errno.EINVAL


def test_has_curve() -> None:
    assert purezmq.has("curve") is True


def test_boxes_agree_with_libsodium_conventions() -> None:
    """The adapter's boxes are MAC + ciphertext (16 bytes longer), open with
    the classic NaCl API, and fail closed (None) when tampered."""
    from nacl.bindings import crypto_box_open, crypto_secretbox_open

    crypto = _crypto.require()
    pk1, sk1 = crypto.keypair()
    pk2, sk2 = crypto.keypair()
    nonce = bytes(24)
    box = crypto.box(b"hello", nonce, pk2, sk1)
    assert len(box) == 5 + 16
    assert crypto_box_open(box, nonce, pk1, sk2) == b"hello"
    assert crypto.box_open(box, nonce, pk1, sk2) == b"hello"
    assert crypto.box_open(box[:-1] + bytes((box[-1] ^ 1,)), nonce, pk1, sk2) is None
    shared = crypto.precompute(pk2, sk1)
    assert crypto.box_afternm(b"hello", nonce, shared) == box
    assert crypto.box_open_afternm(box, nonce, crypto.precompute(pk1, sk2)) == b"hello"
    assert crypto.box_open_afternm(b"x" * 20, nonce, shared) is None
    key = crypto.random(32)
    sealed = crypto.secretbox(b"cookie", nonce, key)
    assert crypto_secretbox_open(sealed, nonce, key) == b"cookie"
    assert crypto.secretbox_open(sealed, nonce, crypto.random(32)) is None
    assert crypto.public_key(sk1) == pk1


def test_curve_keygen_module() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "purezmq.curve_keygen", "--json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    import json

    keys = json.loads(out)
    assert purezmq.curve_public(keys["secret"].encode()) == keys["public"].encode()
    text = subprocess.run(
        [sys.executable, "-m", "purezmq.curve_keygen", "--secret", SERVER_SECRET.decode()],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert text.splitlines() == [
        "== CURVE PUBLIC KEY ==",
        SERVER_PUBLIC.decode(),
        "",
        "== CURVE SECRET KEY ==",
        SERVER_SECRET.decode(),
    ]


# ------------------------------------------------------------ without PyNaCl
@pytest.fixture
def no_pynacl(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Pretend PyNaCl is not installed."""
    _crypto._bindings.cache_clear()
    _crypto._provider.cache_clear()
    monkeypatch.setitem(sys.modules, "nacl.bindings", None)  # type: ignore[arg-type]
    monkeypatch.setitem(sys.modules, "nacl", None)  # type: ignore[arg-type]
    yield
    _crypto._bindings.cache_clear()
    _crypto._provider.cache_clear()


@pytest.mark.usefixtures("no_pynacl")
def test_without_pynacl_has_curve_is_false() -> None:
    assert purezmq.has("curve") is False


@pytest.mark.usefixtures("no_pynacl")
@pytest.mark.parametrize(
    "call", [purezmq.curve_keypair, lambda: purezmq.curve_public(CLIENT_SECRET)]
)
def test_without_pynacl_key_functions_name_the_extra(call: object) -> None:
    with pytest.raises(purezmq.ZMQError) as info:
        call()  # type: ignore[operator]
    assert info.value.errno == errno.ENOTSUP
    assert "purezmq[curve]" in str(info.value)


@pytest.mark.usefixtures("no_pynacl")
@pytest.mark.parametrize("action", ["bind", "connect"])
@pytest.mark.parametrize("server", [True, False])
def test_without_pynacl_curve_sockets_fail_clearly(
    ctx: purezmq.Context, action: str, server: bool
) -> None:
    sock = ctx.socket(purezmq.DEALER)
    if server:
        sock.curve_server = True
        sock.curve_secretkey = SERVER_SECRET
    else:
        sock.curve_serverkey = SERVER_PUBLIC
    with pytest.raises(purezmq.ZMQError) as info:
        getattr(sock, action)(
            "tcp://127.0.0.1:5555" if action == "connect" else "tcp://127.0.0.1:*"
        )
    assert "purezmq[curve]" in str(info.value)
    # NULL and PLAIN sockets keep working
    other = ctx.socket(purezmq.DEALER)
    other.plain_username = b"u"
    other.bind("tcp://127.0.0.1:*")
    sock.close(0)
    other.close(0)
