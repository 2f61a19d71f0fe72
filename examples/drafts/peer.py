"""PEER: each side may bind and connect; connect_peer returns the routing id
of the new peer at once, so a message can go to it before the connection
is even up."""

import purezmq as zmq

ctx = zmq.Context()
alice = ctx.socket(zmq.PEER)
alice.bind("tcp://127.0.0.1:*")
bob = ctx.socket(zmq.PEER)

to_alice = bob.connect_peer(alice.last_endpoint)
bob.send(b"hi alice, this is bob", routing_id=to_alice)

msg = alice.recv(copy=False)
print("alice got:", msg.bytes.decode())
alice.send(b"hi bob", routing_id=msg.routing_id)  # reply to whoever wrote
print("bob got:", bob.recv().decode())

alice.close()
bob.close()
ctx.term()
