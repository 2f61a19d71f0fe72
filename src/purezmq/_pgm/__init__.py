"""PGM (RFC 3208, Pragmatic General Multicast), sans-I/O, as libzmq uses it
through OpenPGM for its ``pgm://`` and ``epgm://`` transports.

Bytes and time in, bytes and timers out: nothing here opens a socket, starts
a thread or reads a clock, so the threaded and asyncio drivers share it and
the tests drive it with a simulated lossy link.

- `packets`: the wire format (header and checksum, SPM, ODATA/RDATA, NAK,
  NCF, SPMR, and the options OPT_LENGTH, OPT_FRAGMENT, OPT_NAK_LIST);
- `sender`: the source's transmit window, SPMs, repairs and RATE;
- `receiver`: the receive window per source, loss detection, NAK timers
  and reassembly of fragmented APDUs;
- `framing`: libzmq's framing of ZeroMQ messages inside APDUs (a 2-byte
  offset of the first message, then ZMTP/1.0 frames).
"""
