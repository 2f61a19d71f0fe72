"""DGRAM: plain udp datagrams. A message is two frames, the peer's address
("a.b.c.d:port", NUL-ended as libzmq writes it) and the body; here one
socket echoes what the other sends."""

import socket

import purezmq as zmq


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


ctx = zmq.Context()
echo, asker = ctx.socket(zmq.DGRAM), ctx.socket(zmq.DGRAM)
echo.rcvtimeo = asker.rcvtimeo = 2000
echo_port = free_udp_port()
echo.bind(f"udp://127.0.0.1:{echo_port}")
asker.bind(f"udp://127.0.0.1:{free_udp_port()}")

asker.send_multipart([f"127.0.0.1:{echo_port}".encode(), b"marco"])
sender, body = echo.recv_multipart()
echo.send_multipart([sender, body.replace(b"marco", b"polo")])
_, reply = asker.recv_multipart()
print(reply.decode())

echo.close()
asker.close()
ctx.term()
