@_spi(RuleAuthoring) import PolicyRuntime

/// The columns a time chart shows: the log's time range in at most `maxColumns` equal spans,
/// each a width of `TimeBuckets.widths`, with far-away strays left out and counted.
///
/// A log with a handful of records stamped 1970 (a zero `ts`) or years ahead would otherwise
/// squeeze a week of traffic into one column. The buckets at either end are strays when a gap
/// separates them from the rest that is longer than the rest's whole span, and they hold at
/// most 1% of the records.
package struct ChartColumns: Sendable {
    /// The first second of the first column.
    package let start: Int64
    /// Seconds per column.
    package let width: Int64
    /// Each column's records, merged from the buckets it spans (empty where none).
    package let columns: [TimeBuckets.Bucket]
    /// Records left out as strays, before and after the range shown.
    package let straysBefore: Int
    package let straysAfter: Int

    /// The columns for `buckets`, at most `maxColumns` (plus one when the range's start is
    /// not on a column boundary); nil when no record has a time.
    package init?(_ buckets: TimeBuckets, maxColumns: Int = 160) {
        let keys = buckets.buckets.keys.sorted()
        guard !keys.isEmpty else { return nil }
        let total = buckets.buckets.values.reduce(0) { $0 + $1.records }
        var low = 0, high = keys.count - 1
        var before = 0, after = 0
        let allowed = total / 100
        func records(_ index: Int) -> Int { buckets.buckets[keys[index]]!.records }
        // Each end is cut at the farthest gap longer than everything left inside it, while what
        // is cut holds at most 1% of the records; cutting one end shortens the span the other
        // end's gaps are compared with, so both are tried again until neither moves.
        var moved = true
        while moved {
            moved = false
            var cut = before, index = low
            while index < high - 1, cut + records(index) <= allowed {
                cut += records(index)
                if keys[index + 1] - keys[index] > keys[high] - keys[index + 1] + 1 {
                    (before, low, moved) = (cut, index + 1, true)
                }
                index += 1
            }
            cut = after
            index = high
            while index > low + 1, cut + records(index) <= allowed {
                cut += records(index)
                if keys[index] - keys[index - 1] > keys[index - 1] - keys[low] + 1 {
                    (after, high, moved) = (cut, index - 1, true)
                }
                index -= 1
            }
        }
        let firstSecond = keys[low] * buckets.width
        let endSecond = (keys[high] + 1) * buckets.width
        let needed = (endSecond - firstSecond + Int64(maxColumns) - 1) / Int64(maxColumns)
        let width = TimeBuckets.width(atLeast: needed, from: buckets.width)
        let first = TimeBuckets.floorDivide(firstSecond, width)
        let last = TimeBuckets.floorDivide(endSecond - 1, width)
        // A column keeps every value of the buckets it merges (a few hundred at most), so it is
        // exact wherever they are.
        var columns = Array(repeating: TimeBuckets.Bucket(dimensions: buckets.dimensionCount, valuesPerBucket: buckets.buckets.count * buckets.valuesPerBucket),
                            count: Int(last - first + 1))
        for key in keys[low...high] {
            columns[Int(TimeBuckets.floorDivide(key * buckets.width, width) - first)].merge(buckets.buckets[key]!)
        }
        start = first * width
        self.width = width
        self.columns = columns
        straysBefore = before
        straysAfter = after
    }

    /// Whether every column's counts in `dimension` are exact: false when more values met in a
    /// span than its bucket keeps, where the values shown are counted at least as shown.
    package func isExact(dimension: Int) -> Bool {
        columns.allSatisfy { $0.dimensions[dimension].exact }
    }

    /// The first second after the last column.
    package var end: Int64 { start + width * Int64(columns.count) }

    /// The `limit` most frequent values of `dimension` over the columns, each with its count
    /// per column, most frequent first, then `otherLabel` with every record of a column that
    /// none of them counts (values past the limit, and those a bucket did not keep); the other
    /// series is left out when it is empty everywhere.
    package func series(dimension: Int, limit: Int, otherLabel: String, first pinned: [String] = []) -> [(name: String, counts: [Int])] {
        var totals: [String: Int] = [:]
        for column in columns {
            for (value, count) in column.dimensions[dimension].counts { totals[value, default: 0] += count }
        }
        let ranked = totals.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map(\.key)
        let names = Array((pinned.filter { totals[$0] != nil } + ranked.filter { !pinned.contains($0) }).prefix(limit))
        var result = names.map { name in (name: name, counts: columns.map { $0.dimensions[dimension].counts[name] ?? 0 }) }
        let other = columns.enumerated().map { index, column in column.records - result.reduce(0) { $0 + $1.counts[index] } }
        if other.contains(where: { $0 > 0 }) { result.append((otherLabel, other)) }
        return result
    }
}
