"""Request-reply: a REQ socket asks, a REP socket answers, in lockstep.

Both ends live in one thread here to keep the example short: REQ must send
before it may receive, REP must receive before it may send, so the calls
alternate. In a real program each end is its own process or thread.
"""

import purezmq as zmq

ctx = zmq.Context()
server = ctx.socket(zmq.REP)
port = server.bind_to_random_port("tcp://127.0.0.1")  # tcp://*:5555 in production

client = ctx.socket(zmq.REQ)
client.connect(f"tcp://127.0.0.1:{port}")  # connect before or after the bind: either works

for n in range(3):
    client.send_string(f"hello {n}")
    request = server.recv_string()
    server.send_string(request.replace("hello", "world"))
    print(client.recv_string())

client.close()
server.close()
ctx.term()
