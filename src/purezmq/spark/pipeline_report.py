"""The demo's closing summary: what each stage saw, and whether it all adds up.

Separate from the orchestration in `demo` so each stays one concern. The
reconciliation is strict: the events the producers sent, the capture
received, the journal holds, Spark read, Spark counted (as the consumer got
it through the sink) and a batch recomputation from the journal must all be
the same number, and the consumer's final table must equal the batch
recomputation group by group.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import Any

from purezmq.journal import Journal


def batch_table(spark: Any, journal: Journal, window_s: int,
                aggregate: Callable[[Any, int], Any]) -> dict[tuple[str, str], int]:  # fmt: skip
    """The same aggregation as a batch query over the journal: the reference."""
    from pyspark.sql import functions as F

    df = spark.read.format("zmq").option("path", journal.uri).option("streams", "events").load()
    rows = (
        aggregate(df, window_s)
        .select(F.date_format("window.start", "yyyy-MM-dd HH:mm:ss").alias("w"), "key", "count")
        .collect()
    )
    return {(r.w, r.key): int(r["count"]) for r in rows}


def journal_events(journal: Journal) -> tuple[int, int]:
    """(messages in the journal, distinct (producer, n) among them)."""
    seen = set()
    total = 0
    for m in journal.messages("events"):
        e = json.loads(m.value)
        seen.add((e["producer"], e["n"]))
        total += 1
    return total, len(seen)


def reconcile(spark: Any, journal: Journal, sent: Counter[str], cap: Any, consumer: Any,
              seen: dict[int, dict[str, Any]], window_s: int,
              aggregate: Callable[[Any, int], Any]) -> int:  # fmt: skip
    """Print the summary; 0 if every stage agrees, 1 otherwise."""
    produced = sum(sent.values())
    in_journal, distinct = journal_events(journal)
    spark_rows = sum(int(p["numInputRows"]) for p in seen.values())
    durations = [seen[b]["durationMs"].get("triggerExecution", 0) for b in sorted(seen)
                 if seen[b]["numInputRows"]]  # fmt: skip
    later = sorted(durations[1:])
    timing = (f"first {durations[0]} ms, then median {later[len(later) // 2]} ms"
              if later else f"{durations[0] if durations else 0} ms")  # fmt: skip
    reference = batch_table(spark, journal, window_s, aggregate)
    final = {k: c for k, (c, _) in consumer.table.items()}
    stats = consumer.receiver.stats
    print("\n== summary: what went through, stage by stage", flush=True)
    rows = [
        ("producers sent", produced, ", ".join(f"{k}={v}" for k, v in sorted(sent.items()))),
        ("capture received", cap.final.get("received", -1),
         f"{cap.final.get('segments', 0)} segments sealed, {cap.final.get('bytes', 0)} bytes"),
        ("journal holds", in_journal, f"{distinct} distinct (producer, n); "
         f"{len(journal.segments('events'))} segment files"),
        ("spark read", spark_rows, f"{len(durations)} micro-batches with data; trigger {timing}"),
        ("spark aggregated", sum(reference.values()), "recomputed by a batch query over the "
         "journal: " + ("equal to the streamed table, group by group" if final == reference
                        else "DIFFERENT from the streamed table")),
        ("consumer received", consumer.total, f"events counted in the final table of "
         f"{len(final)} (window, key) groups; {stats.committed_batches} committed batches, "
         f"{consumer.updates} rows; dropped {stats.duplicates} duplicates, "
         f"{stats.replays} replays"),
    ]  # fmt: skip
    for name, count, detail in rows:
        print(f"  {name:<18} {count:>8}   {detail}", flush=True)
    by_key: Counter[str] = Counter()
    for (_, key), c in final.items():
        by_key[key] += c
    print("  events per key (all windows): "
          + ", ".join(f"{k}={v}" for k, v in sorted(by_key.items())), flush=True)  # fmt: skip
    counts = {produced, cap.final.get("received"), in_journal, distinct, spark_rows,
              consumer.total, sum(reference.values())}  # fmt: skip
    ok = len(counts) == 1 and final == reference
    if final != reference:
        diff = {k for k in final.keys() | reference.keys() if final.get(k) != reference.get(k)}
        print(f"  MISMATCH in {len(diff)} groups, e.g. {sorted(diff)[:3]}", flush=True)
    verdict = "exactly once" if ok else "with differences (see above)"
    print(f"\n{'OK' if ok else 'FAILED'}: {produced} events sent, journaled, aggregated and "
          f"received {verdict}", flush=True)  # fmt: skip
    return 0 if ok else 1
