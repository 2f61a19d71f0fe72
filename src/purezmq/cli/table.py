"""The table ``purezmq top`` draws from two snapshots of ``Socket.get_stats()``.

Rates are differences between consecutive snapshots divided by the time
between them, so they need no clock inside the library: the counters are
totals, as a Prometheus scraper would read them too.
"""

from __future__ import annotations

from typing import Any

HEADER = ["endpoint", "peer", "up", "msgs in", "in/s", "msgs out", "out/s",
          "bytes in", "bytes out", "queued in", "queued out", "reconnects", "hs fail"]  # fmt: skip


def _rate(now: dict[str, Any], before: dict[str, Any] | None, key: str, elapsed: float) -> str:
    if before is None or elapsed <= 0:
        return "-"
    return f"{max(0, now.get(key, 0) - before.get(key, 0)) / elapsed:,.0f}"


def _n(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


def _row(label: str, peer: str, up: str, now: dict[str, Any], before: dict[str, Any] | None,
         elapsed: float) -> list[str]:  # fmt: skip
    return [
        label, peer, up,
        _n(now.get("msgs_in", 0)), _rate(now, before, "msgs_in", elapsed),
        _n(now.get("msgs_out", 0)), _rate(now, before, "msgs_out", elapsed),
        _n(now.get("bytes_in", 0)), _n(now.get("bytes_out", 0)),
        _n(now.get("queued_in", 0)), _n(now.get("queued_out", 0)),
        _n(now.get("reconnects", 0)), _n(now.get("handshake_failures", 0)),
    ]  # fmt: skip


def _keyed(connections: list[dict[str, Any]]) -> list[tuple[tuple[str, str, int], dict[str, Any]]]:
    """Each connection with a key that follows it from one snapshot to the next:
    its endpoint and peer address, and which of the connections sharing them
    it is (two peers on one host accepted on one endpoint look alike)."""
    seen: dict[tuple[str, str], int] = {}
    out = []
    for conn in connections:
        base = (str(conn.get("endpoint", "")), str(conn.get("peer_address", "")))
        seen[base] = seen.get(base, -1) + 1
        out.append(((*base, seen[base]), conn))
    return out


def render_table(
    snapshot: dict[str, Any], previous: dict[str, Any] | None, elapsed: float
) -> tuple[str, list[str], list[list[str]]]:
    """(title, header, rows): the totals first, then one row per connection."""
    title = (
        f"{snapshot.get('socket_type', '?')} socket: "
        f"{len([c for c in snapshot.get('connections', []) if c.get('connected')])} connected, "
        f"{snapshot.get('drops_hwm', 0):,} dropped at HWM"
    )
    rows = [_row("(total)", "", "", snapshot, previous, elapsed)]
    before = dict(_keyed((previous or {}).get("connections", [])))
    for key, conn in _keyed(snapshot.get("connections", [])):
        up = "yes" if conn.get("connected") else "no"
        rows.append(_row(key[0], key[1], up, conn, before.get(key), elapsed))
    return title, list(HEADER), rows


def rich_table(title: str, header: list[str], rows: list[list[str]]) -> Any:
    """The same table as a rich Table (rich must be installed)."""
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for i, name in enumerate(header):
        table.add_column(name, justify="left" if i < 3 else "right")
    for row in rows:
        table.add_row(*row)
    return table
