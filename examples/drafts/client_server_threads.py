"""A SERVER shared by three worker threads, with four CLIENTs asking it.

SERVER and CLIENT are thread-safe: the workers call recv() and send() on the
same socket at the same time, with no lock of their own. Each request
carries the routing id of the CLIENT that sent it, and the reply goes back
to that CLIENT alone."""

import threading

import purezmq as zmq

ctx = zmq.Context()
server = ctx.socket(zmq.SERVER)
server.bind("tcp://127.0.0.1:*")
endpoint = server.last_endpoint


def worker() -> None:
    while True:
        request = server.recv(copy=False)  # a Frame: data and routing_id
        if request.bytes == b"stop":
            return
        server.send(request.bytes.upper(), routing_id=request.routing_id)


workers = [threading.Thread(target=worker) for _ in range(3)]
for w in workers:
    w.start()

clients = [ctx.socket(zmq.CLIENT) for _ in range(4)]
for i, client in enumerate(clients):
    client.connect(endpoint)
    client.send(f"hello from client {i}".encode())
for client in clients:
    print(client.recv().decode())

for _ in workers:  # one stop per worker, from any client
    clients[0].send(b"stop")
for w in workers:
    w.join()
for s in (*clients, server):
    s.close()
ctx.term()
