"""A real S3-compatible server for the tests: moto's server mode (from the
``test`` extra), started on 127.0.0.1 as its own process.

Credentials are fixed test values, and the EC2 metadata lookup is off, so
nothing ever leaves this machine: pyarrow's S3 client talks to the local
server through ``endpoint_override`` in the journal's URI.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

TEST_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_EC2_METADATA_DISABLED": "true",
}


def use_test_credentials() -> None:
    """Point every S3 client of this process (and its children) at test credentials."""
    os.environ.update(TEST_ENV)


@contextmanager
def moto_server() -> Iterator[str]:
    """Run moto's S3 server; yields its ``host:port``."""
    use_test_credentials()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("moto's S3 server did not start") from None
                time.sleep(0.1)
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(30)


def new_bucket(endpoint: str, scheme: str = "s3") -> str:
    """A fresh bucket on the server; returns the URI of a journal path inside it."""
    import pyarrow.fs as pafs

    bucket = f"b-{uuid.uuid4().hex[:12]}"
    fs = pafs.S3FileSystem(
        endpoint_override=endpoint, scheme="http", region="us-east-1", allow_bucket_creation=True
    )
    fs.create_dir(bucket)
    return f"{scheme}://{bucket}/journal?endpoint_override={endpoint}&scheme=http&region=us-east-1"
