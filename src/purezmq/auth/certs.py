"""CURVE certificates: the ZPL text files of czmq and pyzmq.

A certificate is two files: ``NAME.key`` holds the public key and may be
handed out; ``NAME.key_secret`` holds both keys and must stay private (it is
created readable by its owner only). Keys are written as Z85 text::

    #   ZeroMQ CURVE Public Certificate
    metadata
    curve
        public-key = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"

The files are interchangeable with pyzmq's and czmq's ``zcert``.
"""

from __future__ import annotations

import datetime
import glob
import os

from purezmq._crypto import curve_keypair

_SECRET_BANNER = """#   ****  Generated on {0} by purezmq  ****
#   ZeroMQ CURVE **Secret** Certificate
#   DO NOT PROVIDE THIS FILE TO OTHER USERS nor change its permissions.

"""

_PUBLIC_BANNER = """#   ****  Generated on {0} by purezmq  ****
#   ZeroMQ CURVE Public Certificate
#   Exchange securely, or use a secure mechanism to verify the contents
#   of this file after exchange. Store public certificates in your home
#   directory, in the .curve subdirectory.

"""


def _text(value: str | bytes, encoding: str = "utf-8") -> str:
    return value.decode(encoding) if isinstance(value, bytes) else value


def _write_key_file(
    key_filename: str | os.PathLike[str],
    banner: str,
    public_key: str | bytes,
    secret_key: str | bytes | None = None,
    metadata: dict[str, str] | None = None,
    encoding: str = "utf-8",
) -> None:
    """Write one certificate file; a secret one is created with mode 0600."""
    lines = [banner, "metadata\n"]
    for name, value in (metadata or {}).items():
        lines.append(f"    {_text(name, encoding)} = {_text(value, encoding)}\n")
    lines.append("curve\n")
    lines.append(f'    public-key = "{_text(public_key, encoding)}"\n')
    if secret_key:
        lines.append(f'    secret-key = "{_text(secret_key, encoding)}"\n')
    mode = 0o600 if secret_key else 0o644
    fd = os.open(key_filename, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with open(fd, "w", encoding="utf8") as f:
        f.write("".join(lines))


def create_certificates(
    key_dir: str | os.PathLike[str], name: str, metadata: dict[str, str] | None = None
) -> tuple[str, str]:
    """Make a new key pair and write ``NAME.key`` and ``NAME.key_secret`` in
    `key_dir`. Returns (public file, secret file). Needs PyNaCl."""
    public_key, secret_key = curve_keypair()
    base = os.path.join(key_dir, name)
    public_file, secret_file = f"{base}.key", f"{base}.key_secret"
    now = datetime.datetime.now()
    _write_key_file(public_file, _PUBLIC_BANNER.format(now), public_key)
    _write_key_file(
        secret_file,
        _SECRET_BANNER.format(now),
        public_key,
        secret_key=secret_key,
        metadata=metadata,
    )
    return public_file, secret_file


def _value(line: bytes) -> bytes:
    return line.split(b"=", 1)[1].strip(b" \t'\"")


def load_certificate(filename: str | os.PathLike[str]) -> tuple[bytes, bytes | None]:
    """(public key, secret key or None) of a certificate file, as Z85 bytes.

    Raises OSError when the file does not exist and ValueError when it holds
    no public key.
    """
    if not os.path.exists(filename):
        raise OSError(f"Invalid certificate file: {filename}")
    public_key: bytes | None = None
    secret_key: bytes | None = None
    with open(filename, "rb") as f:
        for raw in f:
            line = raw.strip()
            if line.startswith(b"#"):
                continue
            if line.startswith(b"public-key") and b"=" in line:
                public_key = _value(line)
            elif line.startswith(b"secret-key") and b"=" in line:
                secret_key = _value(line)
            if public_key and secret_key:
                break
    if public_key is None:
        raise ValueError(f"No public key found in {filename}")
    return public_key, secret_key


def load_certificates(directory: str | os.PathLike[str] = ".") -> dict[bytes, bool]:
    """The public keys of every ``*.key`` certificate in `directory`:
    {Z85 public key: True}. Raises OSError for a missing directory."""
    if not os.path.isdir(directory):
        raise OSError(f"Invalid certificate directory: {directory}")
    certs: dict[bytes, bool] = {}
    for cert_file in glob.glob(os.path.join(os.fspath(directory), "*.key")):
        public_key, _ = load_certificate(cert_file)
        if public_key:
            certs[public_key] = True
    return certs


__all__ = ["create_certificates", "load_certificate", "load_certificates"]
