"""``python -m purezmq.log URL``: print the log records a PUBHandler publishes at URL."""

from __future__ import annotations

import argparse
import datetime
import sys

from purezmq import constants as C
from purezmq.sugar.context import Context


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser("python -m purezmq.log", description=__doc__)
    parser.add_argument("zmq_pub_url", help="endpoint of the PUBHandler's socket")
    parser.add_argument("-t", "--topic", default="", help="only topics starting with this")
    parser.add_argument("--timestamp", action="store_true", help="prefix the local time")
    parser.add_argument("--separator", default=" | ", help="between topic and message")
    parser.add_argument("--dateformat", default="%Y-%d-%m %H:%M", help="for --timestamp")
    args = parser.parse_args(argv)
    with Context() as ctx, ctx.socket(C.SUB) as sub:
        sub.subscribe(args.topic)
        sub.connect(args.zmq_pub_url)
        try:
            while True:
                if not sub.poll(100, C.POLLIN):
                    continue
                frames = sub.recv_multipart()
                topic = frames[0].decode("utf8", "replace").strip()
                msg = b"".join(frames[1:]).decode("utf8", "replace").strip()
                ts = ""
                if args.timestamp:
                    ts = datetime.datetime.now().strftime(args.dateformat) + " "
                print(f"{ts}{topic}{args.separator}{msg}", flush=True)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
