"""Option parsing for the source and the sink (no Spark needed)."""

from __future__ import annotations

import pytest

from purezmq.spark.options import OptionError, SinkOptions, SourceOptions


def test_source_defaults_follow_kafka() -> None:
    s = SourceOptions.parse({"path": "/j"}, streaming=True)
    assert (s.starting, s.ending, s.fail_on_data_loss, s.include_frames, s.include_headers) == (
        "latest", "latest", True, True, False,
    )  # fmt: skip
    assert SourceOptions.parse({"path": "/j"}, streaming=False).starting == "earliest"


def test_source_options_are_case_insensitive_and_typed() -> None:
    s = SourceOptions.parse(
        {"PATH": "/j", "streams": "b, a,,a", "maxoffsetspertrigger": "500",
         "MaxBytesPerTrigger": "64k", "minPartitions": "4", "failOnDataLoss": "FALSE",
         "includeFrames": "no", "startingOffsets": '{"b": 7, "a": -2}',
         "INCLUDEHEADERS": "true"},
        streaming=True,
    )  # fmt: skip
    assert s.streams == ("a", "b")
    assert (s.max_offsets_per_trigger, s.max_bytes_per_trigger, s.min_partitions) == (
        500, 65536, 4,
    )  # fmt: skip
    assert not s.fail_on_data_loss and not s.include_frames and s.include_headers
    assert s.starting == {"a": -2, "b": 7}
    assert s.selects("a") and not s.selects("c")


def test_stream_pattern_selects_by_full_match() -> None:
    s = SourceOptions.parse({"path": "/j", "streamPattern": "md\\..*"}, streaming=True)
    assert s.selects("md.eur") and not s.selects("xmd.eur")


@pytest.mark.parametrize(
    ("opts", "match"),
    [
        ({}, "path is required"),
        ({"path": "/j", "maxOffsetPerTrigger": "5"}, "unknown option 'maxOffsetPerTrigger'"),
        ({"path": "/j", "streams": "a", "streamPattern": "a"}, "not both"),
        ({"path": "/j", "streams": " , "}, "streams is empty"),
        ({"path": "/j", "streamPattern": "("}, "not a regex"),
        ({"path": "/j", "endingOffsets": "latest"}, "batch reads"),
        ({"path": "/j", "startingOffsets": "newest"}, "startingOffsets must be"),
        ({"path": "/j", "startingOffsets": '{"a": -3}'}, "startingOffsets must be"),
        ({"path": "/j", "startingOffsets": '{"a": true}'}, "startingOffsets must be"),
        ({"path": "/j", "maxOffsetsPerTrigger": "0"}, ">= 1"),
        ({"path": "/j", "maxOffsetsPerTrigger": "ten"}, "whole number"),
        ({"path": "/j", "failOnDataLoss": "maybe"}, "true or false"),
    ],
)
def test_bad_source_options_fail_with_the_option_named(opts: dict[str, str], match: str) -> None:
    with pytest.raises(OptionError, match=match):
        SourceOptions.parse(opts, streaming=True)


def test_batch_ending_offsets() -> None:
    s = SourceOptions.parse({"path": "/j", "endingOffsets": '{"a": 10}'}, streaming=False)
    assert s.ending == {"a": 10}
    with pytest.raises(OptionError, match="-2"):
        SourceOptions.parse({"path": "/j", "endingOffsets": '{"a": -2}'}, streaming=False)


def test_sink_defaults_and_ack_mode() -> None:
    s = SinkOptions.parse({"endpoint": "tcp://a:1, tcp://b:2"})
    assert s.endpoints == ("tcp://a:1", "tcp://b:2")
    assert (s.socket_type, s.ack_mode, s.batch_header, s.commit_marker) == (
        "PUSH",
        "none",
        True,
        False,
    )
    assert s.linger_ms == s.send_timeout_ms == 30_000
    r = SinkOptions.parse({"endpoint": "tcp://a:1", "ackMode": "ROUTER", "topic": "t",
                           "sendTimeoutMs": "500", "commitMarker": "true"})  # fmt: skip
    assert (r.socket_type, r.ack_mode, r.topic, r.linger_ms, r.commit_marker) == (
        "DEALER", "router", b"t", 500, True,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("opts", "match"),
    [
        ({}, "endpoint is required"),
        ({"endpoint": "tcp://a:1", "bind": "true"}, "bind=true is not supported"),
        ({"endpoint": "tcp://a:1", "socketType": "REQ"}, "PUSH, PUB or DEALER"),
        ({"endpoint": "tcp://a:1", "ackMode": "all"}, "none or router"),
        ({"endpoint": "tcp://a:1", "ackMode": "router", "socketType": "PUSH"}, "DEALER"),
        ({"endpoint": "tcp://a:1", "commitMarker": "true", "batchHeader": "false"}, "batchHeader"),
        ({"endpoint": "tcp://a:1", "sendTimeoutMs": "0"}, ">= 1"),
        ({"endpoint": "tcp://a:1", "sndHWM": "x"}, "whole number"),
        ({"endpoint": "tcp://a:1", "acks": "1"}, "unknown option"),
    ],
)
def test_bad_sink_options(opts: dict[str, str], match: str) -> None:
    with pytest.raises(OptionError, match=match):
        SinkOptions.parse(opts)


def test_spark_supplied_keys_are_tolerated() -> None:
    s = SinkOptions.parse({"endpoint": "tcp://a:1", "checkpointLocation": "/ck"})
    assert s.endpoints == ("tcp://a:1",)


def test_write_id_is_for_batch_writes_only() -> None:
    assert SinkOptions.parse({"endpoint": "tcp://a:1"}, streaming=False).write_id is None
    s = SinkOptions.parse({"endpoint": "tcp://a:1", "writeId": " nightly "}, streaming=False)
    assert s.write_id == "nightly"
    with pytest.raises(OptionError, match="batch writes"):
        SinkOptions.parse({"endpoint": "tcp://a:1", "writeId": "x"})
    with pytest.raises(OptionError, match="writeId is empty"):
        SinkOptions.parse({"endpoint": "tcp://a:1", "writeId": " "}, streaming=False)
