"""Print the repair timeline shown in docs/multicast.md, from the real PGM
state machines (purezmq._pgm) joined by a simulated link that drops chosen
packets: what the source sends, what is lost, what the receiver asks for and
when each message is delivered.

    python scripts/gen_pgm_timeline.py      # the block docs/multicast.md shows

tests/unit/pgm/test_timeline_doc.py fails when the page's copy differs.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from purezmq._pgm import packets as P
from purezmq._pgm.receiver import Receiver
from purezmq._pgm.sender import Source

#: ODATA sequence numbers the link drops (once each): one in the middle,
#: found by the gap, and the last, found by the SPM that follows the data.
DROP = {2, 5}
NAMES = {P.ODATA: "ODATA", P.RDATA: "RDATA", P.NCF: "NCF", P.NAK: "NAK", P.SPMR: "SPMR"}


def _describe(pkt: P.Packet) -> str:
    kind = NAMES.get(pkt.kind, hex(pkt.kind))
    if pkt.kind == P.SPM:
        return f"SPM trail={pkt.trail} lead={pkt.lead}"
    if pkt.kind == P.SPMR:
        return "SPMR"
    if pkt.kind in (P.NAK, P.NCF):
        return f"{kind} {','.join(map(str, pkt.nak_list))}"
    return f"{kind} {pkt.sqn}"


def timeline() -> list[str]:
    source = Source(b"source", 40000, 5555, nla="10.0.0.1", group="239.192.1.1",
                    rate_bytes=10**6, now=0.0)  # fmt: skip
    receiver = Receiver(5555, "239.192.1.1", random=lambda: 0.5)  # back-off: half of 50 ms
    lines: list[str] = []
    dropped: set[int] = set()
    delivered = 0

    def row(ms: float, left: str, arrow: str, right: str) -> None:
        lines.append(f"{ms:6.0f} ms  {left:<22} {arrow:<7} {right}".rstrip())

    source.data_to_send(0.0)  # the opening SPM, before the receiver listens
    for step in range(400):
        now = step / 1000
        if step < 6:
            source.send_apdu(b"message %d" % step, now)
        for raw in source.data_to_send(now):
            pkt = P.parse(raw)
            if pkt.kind == P.ODATA and pkt.sqn in DROP and pkt.sqn not in dropped:
                dropped.add(pkt.sqn)
                row(step, _describe(pkt), "──X", "(lost)")
                continue
            receiver.receive(pkt, now)
            got = receiver.deliveries()
            delivered += len(got)
            note = f"delivered up to {delivered - 1}" if got else ""
            if pkt.kind == P.ODATA and not got:
                note = "held: a gap before it"
            row(step, _describe(pkt), "──▶", note)
        receiver.on_timer(now)
        for raw, _dest in receiver.upstream():
            pkt = P.parse(raw)
            why = "new source: asks for an SPM" if pkt.kind == P.SPMR else "after the back-off"
            row(step, "", "◀──", f"{_describe(pkt)} ({why})")
            source.receive(pkt, now)
        if delivered == 6 and not source.backlog and step > 150:
            break
    return lines


HEADER = [f"{'time':>9}  {'source':<22} {'':<7} receiver"]


def main() -> None:
    print("\n".join(HEADER + timeline()))


if __name__ == "__main__":
    main()
