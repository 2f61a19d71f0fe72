"""Make a CURVE key pair: ``python -m purezmq.curve_keygen``.

Prints a new public and secret key as Z85 text (40 characters each), in
libzmq's ``curve_keygen`` layout, or as JSON with ``--json``. With
``--secret KEY`` it prints the public key that belongs to an existing
secret key. Needs PyNaCl (``pip install 'purezmq[curve]'``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from purezmq._crypto import curve_keypair, curve_public
from purezmq.error import ZMQError


def _prog() -> str:
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    name = getattr(spec, "name", None) or "purezmq.curve_keygen"
    return f"python3 -m {name}"


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog=_prog(),
        description="Generate a ZeroMQ CURVE key pair (Z85 text). "
        "Add --json for a JSON object, --secret SECRET to derive the public key "
        "of an existing secret key.",
    )
    parser.add_argument("--json", action="store_true", help="output keys as JSON dict")
    parser.add_argument("--secret", type=str, help="specify secret key to derive a public key")
    opts = parser.parse_args(argv)
    try:
        if opts.secret:
            secret = opts.secret
            public = curve_public(secret.encode()).decode()
        else:
            public_raw, secret_raw = curve_keypair()
            public, secret = public_raw.decode(), secret_raw.decode()
    except ZMQError as e:
        print(f"curve_keygen: {e}", file=sys.stderr)
        return 1
    if opts.json:
        json.dump({"public": public, "secret": secret}, sys.stdout, indent=1, sort_keys=True)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(f"== CURVE PUBLIC KEY ==\n{public}\n\n== CURVE SECRET KEY ==\n{secret}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
