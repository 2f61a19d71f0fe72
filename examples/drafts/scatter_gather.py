"""SCATTER hands out jobs round-robin; each GATHER takes its share.

They are PUSH and PULL with single-part messages (sending with SNDMORE is
EINVAL), and thread-safe."""

import purezmq as zmq

ctx = zmq.Context()
jobs = ctx.socket(zmq.SCATTER)
jobs.bind("inproc://jobs")
workers = [ctx.socket(zmq.GATHER) for _ in range(2)]
for w in workers:
    w.connect("inproc://jobs")

for n in range(6):
    jobs.send(f"job {n}".encode())
for i, w in enumerate(workers):
    print(f"worker {i}:", [w.recv().decode() for _ in range(3)])

try:
    jobs.send(b"part one", zmq.SNDMORE)
except zmq.ZMQError as e:
    print("multipart:", zmq.strerror(e.errno))

for s in (*workers, jobs):
    s.close()
ctx.term()
