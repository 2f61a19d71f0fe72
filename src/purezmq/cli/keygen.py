"""``purezmq keygen``: CURVE key pairs, as text or as certificate files.

The same keys as libzmq's ``curve_keygen`` (and ``python -m
purezmq.curve_keygen``): Z85 text, 40 characters each. ``--cert-dir`` writes
the pair as the certificate files that ``zmq.auth`` loads (NAME.key, the
public one to hand out, and NAME.key_secret, to keep), which is what the
"Ironhouse" pattern of docs/security.md needs on each side.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

import purezmq as zmq

from .common import HelpFormatter, fail


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "keygen", help="make a CURVE key pair (needs the curve extra)",
        description="Make a CURVE key pair (Z85 text), print the public key of a secret key, "
        "or write a certificate pair for zmq.auth. Needs PyNaCl: pip install 'purezmq[curve]'.",
        epilog="examples:\n"
        "  purezmq keygen\n"
        "  purezmq keygen --json\n"
        "  purezmq keygen --cert-dir certs --name server    certs/server.key(_secret)\n",
        formatter_class=HelpFormatter,
    )  # fmt: skip
    p.add_argument(
        "--json", action="store_true", help='print {"public": ..., "secret": ...} instead of text'
    )
    p.add_argument(
        "--secret",
        metavar="Z85",
        help="print the public key that belongs to this secret key (40 characters)",
    )
    p.add_argument("--cert-dir", metavar="DIR",
                   help="write NAME.key and NAME.key_secret into DIR (made if missing) "
                   "instead of printing the keys")  # fmt: skip
    p.add_argument(
        "--name",
        default="client",
        metavar="NAME",
        help="with --cert-dir: the certificate's file name (default: client)",
    )
    p.set_defaults(run=run, parser=p)


def run(a: argparse.Namespace) -> int:
    if a.secret and a.cert_dir:
        a.parser.error("--secret and --cert-dir do not go together")
    if not zmq.has("curve"):
        fail("CURVE needs PyNaCl, which is not installed: pip install 'purezmq[curve]'")
    if a.cert_dir:
        from purezmq.auth import create_certificates

        for suffix in (".key", ".key_secret"):
            path = os.path.join(a.cert_dir, a.name + suffix)
            if os.path.exists(path):  # a secret key is never overwritten
                fail(f"{path} exists: remove it first or choose another --name")
        os.makedirs(a.cert_dir, exist_ok=True)
        public, secret = create_certificates(a.cert_dir, a.name)
        print(public)
        print(secret)
        return 0
    try:
        if a.secret:
            secret = a.secret
            public = zmq.curve_public(secret.encode()).decode()
        else:
            public_raw, secret_raw = zmq.curve_keypair()
            public, secret = public_raw.decode(), secret_raw.decode()
    except (zmq.ZMQError, ValueError) as exc:
        fail(f"--secret: not a CURVE secret key ({exc})")
    if a.json:
        print(json.dumps({"public": public, "secret": secret}, sort_keys=True))
    else:
        print(f"== CURVE PUBLIC KEY ==\n{public}\n\n== CURVE SECRET KEY ==\n{secret}")
    return 0
