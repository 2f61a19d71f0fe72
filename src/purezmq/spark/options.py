"""Option parsing for ``format("zmq")``, with no Spark import.

Spark hands a data source its options as strings in a case-insensitive dict
(keys lower-cased). These functions turn them into typed, validated
dataclasses once, on the driver, so a typo or a bad value fails the query at
start with a message naming the option - not a task, minutes later. Option
names follow Spark's Kafka connector where the meaning is the same.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}
_SIZE = re.compile(r"\s*(\d+)\s*([kmgt]?)i?b?\s*")
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


class OptionError(ValueError):
    """A ``format("zmq")`` option is missing, unknown or malformed."""


SOURCE_OPTIONS = (
    "path", "streams", "streamPattern", "startingOffsets", "endingOffsets",
    "maxOffsetsPerTrigger", "maxBytesPerTrigger", "minPartitions", "failOnDataLoss",
    "includeFrames", "minOffsetsPerTrigger", "maxTriggerDelay", "startingTimestamp",
    "startingOffsetsByTimestamp", "startingOffsetsByTimestampStrategy", "endingTimestamp",
    "endingOffsetsByTimestamp", "consumerName", "includeHeaders",
)  # fmt: skip
SINK_OPTIONS = (
    "endpoint", "socketType", "topic", "batchHeader", "ackMode", "ackTimeoutMs", "ackRetries",
    "ackWindow", "sendTimeoutMs", "lingerMs", "sndhwm", "commitMarker", "subscribeWaitMs",
    "bind", "writeId",
)  # fmt: skip
# Keys Spark itself may add to a writer's or reader's options.
_SPARK_KEYS = {"checkpointlocation", "queryname", "path"}


def _canonical(options: Mapping[str, str], known: tuple[str, ...]) -> dict[str, str]:
    """Options by their canonical names; unknown names are an error (typos are common)."""
    by_lower = {k.lower(): k for k in known}
    out: dict[str, str] = {}
    for key, value in options.items():
        name = by_lower.get(key.lower())
        if name is None:
            if key.lower() in _SPARK_KEYS:
                continue
            raise OptionError(
                f"unknown option {key!r} for format('zmq'); known: {', '.join(known)}"
            )
        out[name] = str(value)
    return out


def _bool(opts: dict[str, str], name: str, default: bool) -> bool:
    raw = opts.get(name)
    if raw is None:
        return default
    low = raw.strip().lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    raise OptionError(f"option {name} must be true or false, got {raw!r}")


def _int(opts: dict[str, str], name: str, default: int | None, minimum: int = 0) -> int | None:
    raw = opts.get(name)
    if raw is None:
        return default
    m = _SIZE.fullmatch(raw.lower())
    if not m:
        raise OptionError(f"option {name} must be a whole number, got {raw!r}")
    value = int(m.group(1)) * _UNITS[m.group(2)]
    if value < minimum:
        raise OptionError(f"option {name} must be >= {minimum}, got {raw!r}")
    return value


OffsetSpec = str | dict[str, int | dict[int, int]]


def _position(v: object, low: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= low


_DELAY = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|)\s*")
_DELAY_UNITS = {"ms": 0.001, "": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def _duration(opts: dict[str, str], name: str, default: str) -> float:
    """Spark's duration strings, as Kafka's maxTriggerDelay takes them: '15m', '30s', '500ms'."""
    raw = opts.get(name, default)
    m = _DELAY.fullmatch(raw.lower())
    if not m:
        raise OptionError(f"option {name} must be a duration like 15m, 30s or 500ms, got {raw!r}")
    return float(m.group(1)) * _DELAY_UNITS[m.group(2)]


def _timestamps(opts: dict[str, str], name: str) -> dict[str, int | dict[int, int]] | None:
    """Kafka's ``{"stream": {"0": ms, ...}}`` (or ``{"stream": ms}``): epoch milliseconds."""
    if name not in opts:
        return None
    spec = _offsets(opts, name, "")
    if isinstance(spec, str) or min(spec_values(spec), default=0) < 0:
        raise OptionError(
            f"option {name} must be JSON like {{\"orders\": {{\"0\": 1700000000000}}}} "
            f"(epoch milliseconds), got {opts[name]!r}"
        )
    return spec


def _offsets(opts: dict[str, str], name: str, default: str) -> OffsetSpec:
    """'earliest' | 'latest' | JSON per stream, or per stream and partition as Kafka's.

    ``{"orders": 1200}`` (a stream's only partition, or -2/-1 for all of
    them) or ``{"orders": {"0": 1200, "1": -2}}``; -2 = earliest, -1 = latest.
    """
    raw = opts.get(name, default).strip()
    if raw.lower() in ("earliest", "latest"):
        return raw.lower()
    try:
        parsed = json.loads(raw)
    except ValueError:
        parsed = None
    out: dict[str, int | dict[int, int]] = {}
    ok = isinstance(parsed, dict)
    for stream, v in parsed.items() if isinstance(parsed, dict) else ():
        if _position(v, -2):
            out[stream] = v
        elif isinstance(v, dict) and all(
            isinstance(p, str) and p.isdigit() and _position(seq, -2) for p, seq in v.items()
        ):
            out[stream] = {int(p): seq for p, seq in sorted(v.items(), key=lambda x: int(x[0]))}
        else:
            ok = False
    if not ok:
        raise OptionError(
            f"option {name} must be 'earliest', 'latest' or JSON like "
            f'{{"orders": 1200, "ticks": -2}} or {{"orders": {{"0": 1200, "1": -1}}}} '
            f"(-2 = earliest, -1 = latest), got {raw!r}"
        )
    return dict(sorted(out.items()))


def spec_values(spec: OffsetSpec) -> list[int]:
    """Every position a JSON offset spec names (for checks like 'no -2 here')."""
    if isinstance(spec, str):
        return []
    return [x for v in spec.values() for x in (v.values() if isinstance(v, dict) else [v])]


@dataclass(frozen=True)
class SourceOptions:
    """The parsed options of the ``format("zmq")`` source."""

    path: str
    streams: tuple[str, ...] | None = None
    stream_pattern: str | None = None
    starting: OffsetSpec = "latest"
    ending: OffsetSpec = "latest"
    max_offsets_per_trigger: int | None = None
    max_bytes_per_trigger: int | None = None
    min_partitions: int | None = None
    fail_on_data_loss: bool = True
    include_frames: bool = True
    include_headers: bool = False
    min_offsets_per_trigger: int | None = None
    max_trigger_delay_s: float = 900.0
    starting_timestamp: int | None = None
    starting_by_timestamp: dict[str, int | dict[int, int]] | None = None
    timestamp_strategy: str = "error"
    ending_timestamp: int | None = None
    ending_by_timestamp: dict[str, int | dict[int, int]] | None = None
    consumer_name: str | None = None

    @classmethod
    def parse(cls, options: Mapping[str, str], *, streaming: bool) -> SourceOptions:
        """Validate `options` for a streaming (or batch) read."""
        o = _canonical(options, SOURCE_OPTIONS)
        path = o.get("path") or options.get("path")
        if not path:
            raise OptionError("option path is required: the journal's directory or URI")
        if "streams" in o and "streamPattern" in o:
            raise OptionError("give streams or streamPattern, not both")
        streams = None
        if "streams" in o:
            streams = tuple(sorted({s.strip() for s in o["streams"].split(",") if s.strip()}))
            if not streams:
                raise OptionError("option streams is empty")
        pattern = o.get("streamPattern")
        if pattern is not None:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise OptionError(f"option streamPattern is not a regex: {exc}") from exc
        if streaming and "endingOffsets" in o:
            raise OptionError("endingOffsets applies to batch reads (spark.read) only")
        ending = _offsets(o, "endingOffsets", "latest")
        if -2 in spec_values(ending):
            raise OptionError("endingOffsets cannot use -2 (earliest)")
        if streaming and ("endingTimestamp" in o or "endingOffsetsByTimestamp" in o):
            raise OptionError("endingTimestamp and endingOffsetsByTimestamp apply to batch reads")
        strategy = o.get("startingOffsetsByTimestampStrategy", "error").strip().lower()
        if strategy not in ("error", "latest"):
            raise OptionError(
                "option startingOffsetsByTimestampStrategy must be error or latest, "
                f"got {strategy!r}"
            )
        consumer = o.get("consumerName")
        if consumer is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}", consumer):
            raise OptionError(
                "option consumerName must be 1-200 letters, digits, '.', '_' or '-', "
                f"got {consumer!r}"
            )
        return cls(
            path=str(path),
            streams=streams,
            stream_pattern=pattern,
            starting=_offsets(o, "startingOffsets", "latest" if streaming else "earliest"),
            ending=ending,
            max_offsets_per_trigger=_int(o, "maxOffsetsPerTrigger", None, 1),
            max_bytes_per_trigger=_int(o, "maxBytesPerTrigger", None, 1),
            min_partitions=_int(o, "minPartitions", None, 1),
            fail_on_data_loss=_bool(o, "failOnDataLoss", True),
            include_frames=_bool(o, "includeFrames", True),
            include_headers=_bool(o, "includeHeaders", False),
            min_offsets_per_trigger=_int(o, "minOffsetsPerTrigger", None, 1),
            max_trigger_delay_s=_duration(o, "maxTriggerDelay", "15m"),
            starting_timestamp=_int(o, "startingTimestamp", None, 0),
            starting_by_timestamp=_timestamps(o, "startingOffsetsByTimestamp"),
            timestamp_strategy=strategy,
            ending_timestamp=_int(o, "endingTimestamp", None, 0),
            ending_by_timestamp=_timestamps(o, "endingOffsetsByTimestamp"),
            consumer_name=consumer,
        )

    def selects(self, stream: str) -> bool:
        """Whether `stream` is one this query reads."""
        if self.streams is not None:
            return stream in self.streams
        if self.stream_pattern is not None:
            return re.fullmatch(self.stream_pattern, stream) is not None
        return True


@dataclass(frozen=True)
class SinkOptions:
    """The parsed options of the ``format("zmq")`` sink."""

    endpoints: tuple[str, ...]
    socket_type: str = "PUSH"
    topic: bytes | None = None
    batch_header: bool = True
    ack_mode: str = "none"
    ack_timeout_ms: int = 10_000
    ack_retries: int = 3
    ack_window: int = 1000
    send_timeout_ms: int = 30_000
    linger_ms: int = 30_000
    sndhwm: int = 1000
    commit_marker: bool = False
    subscribe_wait_ms: int = 5000
    write_id: str | None = None

    @classmethod
    def parse(cls, options: Mapping[str, str], *, streaming: bool = True) -> SinkOptions:
        """Validate the sink's `options` for a streaming (or, `streaming=False`, batch) write.

        ``writeId`` names a batch write (``df.write``) in the headers and
        markers; a streaming query is named by Spark's query id instead, so
        the option is refused there rather than silently ignored.
        """
        o = _canonical(options, SINK_OPTIONS)
        write_id = o.get("writeId")
        if write_id is not None:
            if streaming:
                raise OptionError(
                    "writeId applies to batch writes (df.write) only; a streaming query's "
                    "messages carry its query id"
                )
            write_id = write_id.strip()
            if not write_id:
                raise OptionError("option writeId is empty")
        eps = tuple(e.strip() for e in o.get("endpoint", "").split(",") if e.strip())
        if not eps:
            raise OptionError("option endpoint is required (comma-separated for several peers)")
        if _bool(o, "bind", False):
            raise OptionError(
                "bind=true is not supported: every Spark task opens its own socket, and many "
                "tasks cannot bind one port; bind on the receiving side and let the sink connect"
            )
        ack_mode = o.get("ackMode", "none").strip().lower()
        if ack_mode not in ("none", "router"):
            raise OptionError(f"option ackMode must be none or router, got {ack_mode!r}")
        default_type = "DEALER" if ack_mode == "router" else "PUSH"
        stype = o.get("socketType", default_type).strip().upper()
        if stype not in ("PUSH", "PUB", "DEALER"):
            raise OptionError(f"option socketType must be PUSH, PUB or DEALER, got {stype!r}")
        if ack_mode == "router" and stype != "DEALER":
            raise OptionError("ackMode=router needs socketType=DEALER (acks come back to it)")
        header = _bool(o, "batchHeader", True)
        marker = _bool(o, "commitMarker", False)
        if (ack_mode == "router" or marker) and not header:
            raise OptionError("ackMode=router and commitMarker need batchHeader=true")
        send_timeout = _int(o, "sendTimeoutMs", 30_000, 1)
        assert send_timeout is not None
        topic = o.get("topic")

        def num(name: str, default: int, minimum: int = 0) -> int:
            value = _int(o, name, default, minimum)
            assert value is not None
            return value

        return cls(
            endpoints=eps,
            socket_type=stype,
            topic=None if topic is None else topic.encode(),
            batch_header=header,
            ack_mode=ack_mode,
            ack_timeout_ms=num("ackTimeoutMs", 10_000, 1),
            ack_retries=num("ackRetries", 3),
            ack_window=num("ackWindow", 1000, 1),
            send_timeout_ms=send_timeout,
            linger_ms=num("lingerMs", send_timeout),
            sndhwm=num("sndhwm", 1000),
            commit_marker=marker,
            subscribe_wait_ms=num("subscribeWaitMs", 5000),
            write_id=write_id,
        )
