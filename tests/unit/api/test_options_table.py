"""The option table's own API: consistency, storage, forwarding, messages."""

from __future__ import annotations

import errno
import ipaddress
import re
from typing import Any

import pytest

import purezmq.constants as pc
from purezmq._core.options import (
    CONTEXT_OPTIONS,
    DEFAULT_FEATURES,
    OPTIONS,
    ContextOptions,
    Kind,
    SocketOptions,
    Storage,
)
from purezmq.error import ZMQError

Z85_KEY = b"rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"


def einval(call: Any, *args: Any) -> str:
    with pytest.raises(ZMQError) as info:
        call(*args)
    assert info.value.errno == errno.EINVAL
    assert str(info.value).startswith("Invalid argument: ")
    return str(info.value)


# ----------------------------------------------------------------- the table


def test_every_socket_option_has_a_spec() -> None:
    for option in pc.SocketOption:
        spec = OPTIONS[option]
        assert spec.number == option
        assert spec.name == pc.SocketOption(option).name
    assert set(OPTIONS) == {int(option) for option in pc.SocketOption}


def test_kinds_agree_with_pyzmqs_opt_types() -> None:
    expected = {"int": {Kind.INT}, "int64": {Kind.INT64}, "fd": {Kind.FD}}
    expected["bytes"] = {Kind.BINARY, Kind.STRING}
    for option in pc.SocketOption:
        assert OPTIONS[option].kind in expected[option._opt_type.name], option.name


def test_pattern_options_are_named_and_restricted() -> None:
    patterns = {spec.name: spec for spec in OPTIONS.values() if spec.pattern_name}
    for name, spec in patterns.items():
        assert spec.pattern_name == name.lower()
        assert spec.socket_types, name
    assert patterns["ROUTER_MANDATORY"].socket_types == {pc.ROUTER, pc.REP}
    assert patterns["SUBSCRIBE"].socket_types == {pc.SUB, pc.PUB, pc.XPUB}
    assert patterns["PROBE_ROUTER"].socket_types == {pc.ROUTER, pc.REP, pc.DEALER, pc.REQ}
    assert patterns["XPUB_VERBOSE"].socket_types == {pc.PUB, pc.XPUB}


def test_defaults_documented_by_libzmq() -> None:
    expected = {
        pc.SNDHWM: 1000, pc.RCVHWM: 1000, pc.LINGER: -1, pc.RECONNECT_IVL: 100,
        pc.RECONNECT_IVL_MAX: 0, pc.BACKLOG: 100, pc.MAXMSGSIZE: -1, pc.RCVTIMEO: -1,
        pc.SNDTIMEO: -1, pc.HANDSHAKE_IVL: 30000, pc.HEARTBEAT_IVL: 0, pc.HEARTBEAT_TTL: 0,
        pc.HEARTBEAT_TIMEOUT: -1, pc.TCP_KEEPALIVE: -1, pc.IMMEDIATE: 0, pc.IPV6: 0,
        pc.SNDBUF: -1, pc.RCVBUF: -1, pc.ROUTING_ID: b"", pc.MECHANISM: 0,
        pc.LAST_ENDPOINT: b"", pc.RCVMORE: 0,
    }  # fmt: skip
    options = SocketOptions(pc.DEALER)
    for option, value in expected.items():
        assert options.get(option) == value, pc.SocketOption(option).name
    assert options.get(pc.TYPE) == pc.DEALER
    assert OPTIONS[pc.LINGER].default_for(pc.SUB) == 0
    assert SocketOptions(pc.XSUB).get(pc.LINGER) == 0


def test_effective_types_are_informative_only() -> None:
    conflate = OPTIONS[pc.CONFLATE]
    assert conflate.effective_types == {pc.DEALER, pc.PULL, pc.PUSH, pc.PUB, pc.SUB}
    SocketOptions(pc.ROUTER).set(pc.CONFLATE, 1)  # accepted, as by libzmq


# ----------------------------------------------------------------- set / get


def test_sockets_share_their_defaults_until_an_option_is_written() -> None:
    """Options start as the type's shared defaults (no copy per socket): a
    write of any kind - set, store, a side effect, an appended value - goes
    to the socket's own copy and leaves every other socket's values alone."""
    fresh = SocketOptions(pc.SUB)
    pristine = {o: fresh.value(o) for o in (pc.LINGER, pc.IPV6, pc.SUBSCRIBE, pc.RCVMORE)}
    writers = [
        lambda o: o.set(pc.LINGER, 5),
        lambda o: o.set(pc.IPV4ONLY, 0),  # writes IPV6 too
        lambda o: o.set(pc.SUBSCRIBE, b"a"),  # appends
        lambda o: o.store(pc.RCVMORE, 1),
    ]
    for write in writers:
        written = SocketOptions(pc.SUB)
        write(written)
        other = SocketOptions(pc.SUB)
        assert {o: other.value(o) for o in pristine} == pristine
        assert {o: fresh.value(o) for o in pristine} == pristine
    assert written.value(pc.RCVMORE) == 1
    assert fresh.value(pc.RCVMORE) != 1


def test_values_are_stored_as_libzmq_reports_them() -> None:
    options = SocketOptions(pc.DEALER)
    options.set(pc.SNDHWM, True)
    assert options.get(pc.SNDHWM) == 1
    assert type(options.get(pc.SNDHWM)) is int
    options.set(pc.INVERT_MATCHING, -5)
    assert options.get(pc.INVERT_MATCHING) == 1
    options.set(pc.HEARTBEAT_TTL, 1999)
    assert options.get(pc.HEARTBEAT_TTL) == 1900
    options.set(pc.IPV4ONLY, 0)
    assert (options.get(pc.IPV6), options.get(pc.IPV4ONLY)) == (1, 0)


def test_type_errors_use_pyzmqs_words() -> None:
    options = SocketOptions(pc.SUB)
    with pytest.raises(TypeError, match="unicode not allowed, use setsockopt_string"):
        options.set(pc.SUBSCRIBE, "topic")
    with pytest.raises(TypeError, match="expected bytes, got: 5"):
        options.set(pc.SUBSCRIBE, 5)
    with pytest.raises(TypeError, match=re.escape("expected int, got: 1.5")):
        options.set(pc.LINGER, 1.5)
    with pytest.raises(OverflowError):
        options.set(pc.LINGER, 2**31)
    options.set(pc.MAXMSGSIZE, 2**40)
    assert options.get(pc.MAXMSGSIZE) == 2**40


def test_range_errors_say_what_is_allowed() -> None:
    options = SocketOptions(pc.DEALER)
    assert "SNDHWM must be >= 0" in einval(options.set, pc.SNDHWM, -1)
    assert "LINGER must be >= -1" in einval(options.set, pc.LINGER, -2)
    assert "TCP_KEEPALIVE must be -1 or 0 or 1" in einval(options.set, pc.TCP_KEEPALIVE, 2)
    assert "1 to 255 bytes" in einval(options.set, pc.ROUTING_ID, b"")
    assert "0 and 6553599" in einval(options.set, pc.HEARTBEAT_TTL, 6553600)
    assert "X-Name:value" in einval(options.set, pc.METADATA, b"Name:value")


def test_refusals_say_what_to_do() -> None:
    options = SocketOptions(pc.DEALER)
    assert "SNDHWM and RCVHWM" in einval(options.set, pc.HWM, 1)
    assert "Context.set" in einval(options.set, pc.BLOCKY, 1)
    assert "only REP, ROUTER" in einval(options.set, pc.ROUTER_MANDATORY, 1)
    assert "TYPE cannot be set" in einval(options.set, pc.TYPE, 1)
    assert "SUBSCRIBE cannot be read" in einval(SocketOptions(pc.SUB).get, pc.SUBSCRIBE)
    assert "unknown socket option 999" in einval(options.set, 999, 1)
    assert "unknown socket option 999" in einval(options.get, 999)
    assert "draft option" in einval(options.set, pc.IN_BATCH_SIZE, 100)
    assert "gssapi" in einval(options.set, pc.GSSAPI_SERVER, 1)
    assert "XPUB_MANUAL=1" in einval(SocketOptions(pc.XPUB).set, pc.SUBSCRIBE, b"")


def test_long_strings_cannot_be_read_back_as_in_pyzmq() -> None:
    options = SocketOptions(pc.DEALER)
    options.set(pc.ZAP_DOMAIN, b"d" * 254)
    assert options.get(pc.ZAP_DOMAIN) == b"d" * 254
    options.set(pc.ZAP_DOMAIN, b"d" * 255)
    assert "at most 254" in einval(options.get, pc.ZAP_DOMAIN)
    options.store(pc.LAST_ENDPOINT, b"ipc://" + b"p" * 300)
    einval(options.get, pc.LAST_ENDPOINT)


# ----------------------------------------------------------------- the socket layer's side


def test_forward_receives_pattern_options_by_name() -> None:
    received: list[tuple[str, object]] = []
    options = SocketOptions(pc.ROUTER, forward=lambda name, value: received.append((name, value)))
    options.set(pc.ROUTER_MANDATORY, 1)
    options.set(pc.ROUTER_HANDOVER, 0)
    options.set(pc.CONNECT_ROUTING_ID, b"peer-1")
    options.set(pc.SNDHWM, 10)  # not a pattern option: not forwarded
    assert received == [
        ("router_mandatory", True),
        ("router_handover", False),
        ("connect_routing_id", b"peer-1"),
    ]
    assert options.value(pc.CONNECT_ROUTING_ID) == b"peer-1"


def test_forward_can_be_attached_later_and_refuse() -> None:
    class Refused(Exception):
        pass

    def refuse(name: str, value: object) -> None:
        raise Refused(name)

    options = SocketOptions(pc.SUB)
    options.forward = refuse
    with pytest.raises(Refused, match="subscribe"):
        options.set(pc.SUBSCRIBE, b"topic")


def test_validate_then_store_flow() -> None:
    """The socket layer may validate, apply to the pattern itself, then store."""
    options = SocketOptions(pc.XPUB)
    accepted = options.validate(pc.XPUB_MANUAL, 5)
    assert accepted is True
    options.store(pc.XPUB_MANUAL, accepted)
    assert options.validate(pc.SUBSCRIBE, b"topic") == b"topic"
    options.store(pc.XPUB_MANUAL, False)
    einval(options.validate, pc.SUBSCRIBE, b"topic")


def test_validate_does_not_store() -> None:
    options = SocketOptions(pc.DEALER)
    assert options.validate(pc.SNDHWM, 5) == 5
    assert options.get(pc.SNDHWM) == 1000
    assert options.spec(pc.SNDHWM) is OPTIONS[pc.SNDHWM]
    assert options.spec(999) is None


def test_live_answers_dynamic_options() -> None:
    options = SocketOptions(pc.PUB)
    einval(options.get, pc.FD)  # only a live socket has one
    answers = {int(pc.FD): 42, int(pc.EVENTS): int(pc.POLLOUT), int(pc.TOPICS_COUNT): 3}
    options.live = answers.get
    assert (options.get(pc.FD), options.get(pc.EVENTS), options.get(pc.TOPICS_COUNT)) == (42, 2, 3)
    options.store(pc.RCVMORE, 1)
    assert options.get(pc.RCVMORE) == 1
    einval(SocketOptions(pc.DEALER).get, pc.TOPICS_COUNT)


def test_live_answers_first_and_none_falls_back() -> None:
    """A socket answers EVENTS, FD... through one `live` callable; None from
    it means the stored value (or a provider's) stands."""
    options = SocketOptions(pc.DEALER)
    asked: list[int] = []

    def live(option: int) -> int | None:
        asked.append(option)
        return 7 if option == pc.FD else None

    options.live = live
    options.store(pc.RCVMORE, 1)
    assert options.get(pc.FD) == 7
    assert options.get(pc.RCVMORE) == 1  # live said None: the stored value
    assert options.get(pc.SNDHWM) == 1000
    assert asked == [pc.FD, pc.RCVMORE, pc.SNDHWM]


def test_security_options_select_the_mechanism() -> None:
    options = SocketOptions(pc.REQ)
    assert options.mechanism == pc.NULL
    options.set(pc.CURVE_SERVER, 1)
    assert (options.mechanism, options.as_server, options.get(pc.CURVE_SERVER)) == (pc.CURVE, 1, 1)
    options.set(pc.PLAIN_USERNAME, b"admin")
    assert (options.mechanism, options.as_server, options.get(pc.CURVE_SERVER)) == (pc.PLAIN, 0, 0)
    options.set(pc.PLAIN_SERVER, 0)
    assert options.mechanism == pc.NULL


def test_curve_keys_are_kept_as_32_bytes() -> None:
    # The Z85 example from the spec: "HelloWorld" is 86 4F D2 6F B5 59 F7 5B.
    options = SocketOptions(pc.DEALER)
    raw = bytes.fromhex("864FD26FB559F75B") * 4
    options.set(pc.CURVE_SERVERKEY, b"HelloWorld" * 4)
    assert options.value(pc.CURVE_SERVERKEY) == raw
    options.set(pc.CURVE_PUBLICKEY, raw)
    assert options.value(pc.CURVE_PUBLICKEY) == raw
    options.set(pc.CURVE_SECRETKEY, b"HelloWorld" * 4 + b"\x00")
    assert options.value(pc.CURVE_SECRETKEY) == raw
    # libzmq decodes a shorter NUL-terminated text into the start of the key.
    options.set(pc.CURVE_SECRETKEY, b"0" * 20 + bytes(21))
    assert options.value(pc.CURVE_SECRETKEY) == bytes(16) + raw[16:]
    assert "Z85" in einval(options.set, pc.CURVE_PUBLICKEY, b"\x01" * 40)
    # Keys cannot be read through pyzmq's get (its buffer is neither 32 nor 41).
    einval(options.get, pc.CURVE_PUBLICKEY)


def test_accumulating_options() -> None:
    options = SocketOptions(pc.ROUTER)
    options.set(pc.TCP_ACCEPT_FILTER, b"10.1.2.3/8")
    options.set(pc.TCP_ACCEPT_FILTER, b"127.0.0.1")
    assert options.value(pc.TCP_ACCEPT_FILTER) == (
        ipaddress.ip_network("10.0.0.0/8"),
        ipaddress.ip_network("127.0.0.1/32"),
    )
    options.set(pc.METADATA, b"X-Name:first")
    options.set(pc.METADATA, b"X-Name:second")
    options.set(pc.METADATA, b"X-Other:a:b")
    assert options.value(pc.METADATA) == ((b"X-Name", b"first"), (b"X-Other", b"a:b"))
    if "ipc_filter_ugid" in DEFAULT_FEATURES:
        options.set(pc.IPC_FILTER_UID, 1000)
        options.set(pc.IPC_FILTER_UID, 1000)
        options.set(pc.IPC_FILTER_UID, 0)
        assert options.value(pc.IPC_FILTER_UID) == frozenset({0, 1000})
    assert OPTIONS[pc.SUBSCRIBE].storage is Storage.NONE


def test_draft_options_work_when_the_feature_is_on() -> None:
    features = DEFAULT_FEATURES | {"draft"}
    router = SocketOptions(pc.ROUTER, features=features)
    router.set(pc.ROUTER_NOTIFY, int(pc.NOTIFY_CONNECT | pc.NOTIFY_DISCONNECT))
    assert router.get(pc.ROUTER_NOTIFY) == 3
    assert SocketOptions(pc.DEALER, features=features).get(pc.ROUTER_NOTIFY) == 0
    einval(SocketOptions(pc.DEALER, features=features).set, pc.ROUTER_NOTIFY, 1)
    assert router.get(pc.IN_BATCH_SIZE) == 8192
    einval(SocketOptions(pc.ROUTER, features=features).set, pc.NORM_MODE, 1)


def test_gssapi_options_are_typed_and_stored_when_enabled() -> None:
    options = SocketOptions(pc.DEALER, features=DEFAULT_FEATURES | {"gssapi"})
    options.set(pc.GSSAPI_SERVICE_PRINCIPAL, b"zmq/host")
    assert options.mechanism == pc.GSSAPI
    assert options.get(pc.GSSAPI_SERVICE_PRINCIPAL) == b"zmq/host"
    options.set(pc.GSSAPI_SERVER, 0)
    assert options.mechanism == pc.GSSAPI  # libzmq: GSSAPI_SERVER=0 keeps GSSAPI


# ----------------------------------------------------------------- context options


def test_context_defaults() -> None:
    options = ContextOptions()
    assert options.get(pc.IO_THREADS) == 1
    assert options.get(pc.MAX_SOCKETS) == 1023
    assert options.get(pc.SOCKET_LIMIT) == 65535
    assert options.get(pc.MAX_MSGSZ) == 2**31 - 1
    assert options.get(pc.MSG_T_SIZE) == 64
    assert options.get(pc.IPV6) == 0
    assert options.get(pc.BLOCKY) == 1
    assert options.get(pc.THREAD_SCHED_POLICY) == -1
    assert set(CONTEXT_OPTIONS) == {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 42, 70}


def test_context_thread_options_are_kept() -> None:
    options = ContextOptions()
    options.set(pc.THREAD_PRIORITY, 10)
    assert options.thread_priority == 10
    assert options.get(pc.SOCKET_LIMIT) == 65535  # same number, read side
    options.set(pc.THREAD_AFFINITY_CPU_ADD, 1)
    options.set(pc.THREAD_AFFINITY_CPU_ADD, 3)
    options.set(pc.THREAD_AFFINITY_CPU_REMOVE, 1)
    assert options.thread_affinity_cpus == frozenset({3})
    assert "not in" in einval(options.set, pc.THREAD_AFFINITY_CPU_REMOVE, 1)
    options.set(pc.THREAD_NAME_PREFIX, 7)
    assert (options.thread_name_prefix, options.get(pc.THREAD_NAME_PREFIX)) == ("7", 7)
    options.set(pc.BLOCKY, 5)
    assert options.get(pc.BLOCKY) == 1
    assert "MSG_T_SIZE is read-only" in einval(options.set, pc.MSG_T_SIZE, 1)
    assert "IO_THREADS must be >= 0" in einval(options.set, pc.IO_THREADS, -1)
    with pytest.raises(TypeError, match="expected int, got: 'x'"):
        options.set(pc.IO_THREADS, "x")
