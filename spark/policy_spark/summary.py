"""The partitions' batch summaries merged into one, and laid out for a person."""

from typing import Dict, Iterable, List, Optional

from pyspark.accumulators import AccumulatorParam

# As `policy-run batch`: at most this many issuers and kids are kept per table.
TABLE_CAPACITY = 1000
# Rows of each table a person is shown before the rest is counted together.
LISTED = 10


class PartitionSummaries(AccumulatorParam):
    """An accumulator of {partition index: that partition's batch summary}.

    Keyed by partition, so a partition judged twice (a retried or speculative task, or an action
    run again) is counted once.
    """

    def zero(self, value: Dict[int, dict]) -> Dict[int, dict]:
        return {}

    def addInPlace(self, value1: Dict[int, dict], value2: Dict[int, dict]) -> Dict[int, dict]:
        value1.update(value2)
        return value1


def _merge_table(tables: Iterable[Dict[str, int]]) -> Dict[str, int]:
    """Bounded counts merged as `policy-run batch` merges its workers': summed, then every count
    lowered by the (capacity + 1)-th largest when more than the capacity remain (Misra–Gries)."""
    merged: Dict[str, int] = {}
    for table in tables:
        for name, count in table.items():
            merged[name] = merged.get(name, 0) + count
    if len(merged) > TABLE_CAPACITY:
        threshold = sorted(merged.values(), reverse=True)[TABLE_CAPACITY]
        merged = {name: count - threshold for name, count in merged.items() if count > threshold}
    return merged


def _sorted(table: Dict[str, int]) -> Dict[str, int]:
    return dict(sorted(table.items(), key=lambda item: (-item[1], item[0])))


def merge(parts: List[dict], seconds: Optional[float] = None) -> dict:
    """One summary of a whole run from its partitions' `--summary-json` objects.

    Totals and code counts add up exactly; issuer and kid tables stay bounded as in one run, their
    `*_not_listed` counting every record no kept row accounts for. `seconds` is the run's wall
    time, measured by the caller (the partitions' own times overlap).
    """
    def total(name: str) -> int:
        return sum(part.get(name, 0) for part in parts)

    records = total("records")
    summary = {
        "records": records,
        "valid": total("valid"),
        "invalid": total("invalid"),
        "codes": _sorted(_merge_table([part.get("codes", {}) for part in parts])),
        "partitions": len(parts),
    }
    for table in ("issuers", "kids"):
        merged = _merge_table([part.get(table, {}) for part in parts])
        summary[table] = _sorted(merged)
        summary[f"{table}_not_listed"] = records - sum(merged.values())
    if parts and "limits" in parts[0]:
        summary["limits"] = parts[0]["limits"]
    if seconds is not None:
        summary["seconds"] = round(seconds, 3)
        summary["records_per_second"] = int(records / seconds) if seconds > 0 else 0
    rss = [part["max_rss_bytes"] for part in parts if "max_rss_bytes" in part]
    if rss:
        summary["max_rss_bytes_per_partition"] = max(rss)
    caches = [part["signature_cache"] for part in parts if "signature_cache" in part]
    if caches:
        summary["signature_cache"] = {"hits": sum(cache["hits"] for cache in caches),
                                      "misses": sum(cache["misses"] for cache in caches)}
        if any("first_sightings" in cache for cache in caches):
            summary["signature_cache"]["first_sightings"] = sum(cache.get("first_sightings", 0) for cache in caches)
    reused = [part["verdicts_reused"] for part in parts if "verdicts_reused" in part]
    if reused:
        summary["verdicts_reused"] = sum(reused)
    return summary


def _escaped(value: str) -> str:
    # Issuers and kids come from unverified tokens: control characters are shown, not obeyed.
    return "".join(character if character.isprintable() else f"\\u{ord(character):04x}" for character in value)


def _table(counts: Dict[str, int], not_listed: int) -> List[str]:
    rows = sorted(((_escaped(name), count) for name, count in counts.items()), key=lambda item: (-item[1], item[0]))
    width = max((len(name) for name, _ in rows[:LISTED]), default=0)
    lines = [f"  {name.ljust(width)}  {count:,}" for name, count in rows[:LISTED]]
    rest = rows[LISTED:]
    rest_records = sum(count for _, count in rest) + not_listed
    if rest_records > 0:
        others = " and others not kept" if not_listed > 0 else ""
        lines.append(f"  ({len(rest)} more{others}: {rest_records:,})")
    return lines


def render(summary: dict) -> str:
    """The summary as `policy-run batch` prints its own, with the partitions counted."""
    timing = ""
    if "seconds" in summary:
        timing = f" ({summary['seconds']:.2f} s, {summary['records_per_second']:,} records/s)"
    lines = [f"{summary['records']:,} records: {summary['valid']:,} valid, {summary['invalid']:,} invalid{timing}, "
             f"{summary['partitions']:,} partitions"]
    if summary["codes"]:
        lines.append("findings:")
        lines += _table(summary["codes"], 0)
    lines.append("issuers:")
    lines += _table(summary["issuers"], summary["issuers_not_listed"])
    lines.append("kids:")
    lines += _table(summary["kids"], summary["kids_not_listed"])
    cache = summary.get("signature_cache")
    if cache:
        # A token the verdict memo had not seen is verified without asking the cache.
        unasked = f"; {cache['first_sightings']:,} first sightings verified without it" if cache.get("first_sightings") else ""
        lines.append(f"signature cache: {cache['hits']:,} repeated tokens answered, {cache['misses']:,} verified{unasked}")
    if summary.get("verdicts_reused"):
        lines.append(f"verdicts reused: {summary['verdicts_reused']:,} records, each a token judged before at a time its verdict holds")
    return "\n".join(lines) + "\n"
