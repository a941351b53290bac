@_spi(RuleAuthoring) package import PolicyRuntime

/// Counts of records by time, in buckets as wide as the log needs, with each bucket's records
/// counted by value in a few dimensions (an outcome, an issuer, a kid).
///
/// A report is made while the log streams past, so its span is not known in advance, and the
/// times come from the records (any year, in any order). Buckets start a second wide; while more
/// than `maxBuckets` are occupied they are merged into the next width of `TimeBuckets.widths`,
/// each a multiple of the one before, so merging is exact. Only occupied buckets are kept: a
/// few records years away from the rest cost a bucket each, not the years between. Values come
/// from unverified tokens too, so each dimension of a bucket keeps its `valuesPerBucket` most
/// frequent values (`BoundedCounts`) and counts the rest as not listed.
package struct TimeBuckets: Sendable, Equatable {
    /// One bucket's records, and their counts by value in each dimension.
    package struct Bucket: Sendable, Equatable {
        package private(set) var records = 0
        package private(set) var dimensions: [BoundedCounts]

        init(dimensions: Int, valuesPerBucket: Int) {
            self.dimensions = Array(repeating: BoundedCounts(capacity: valuesPerBucket), count: dimensions)
        }

        /// Counts `value` in `dimension` for a record of this bucket.
        package mutating func add(_ value: String, in dimension: Int) {
            dimensions[dimension].add(value)
        }

        mutating func merge(_ other: Bucket) {
            records += other.records
            for index in dimensions.indices { dimensions[index].merge(other.dimensions[index]) }
        }

        fileprivate mutating func countRecord() {
            records += 1
        }
    }

    /// Bucket widths in seconds, each a multiple of the one before: 1 s, 2 s, 10 s, 30 s, 1 min,
    /// 2 min, 10 min, 30 min, 1 h, 2 h, 6 h, 12 h, a day, a week, 4 weeks, 52 weeks; past the last,
    /// widths double.
    package static let widths: [Int64] = [1, 2, 10, 30, 60, 120, 600, 1800, 3600, 7200, 21_600, 43_200, 86_400, 604_800, 2_419_200, 31_449_600]

    /// The values each dimension of a bucket keeps unless told otherwise: exact counts while a
    /// span meets no more than that many issuers or kids.
    package static let defaultValuesPerBucket = 32

    /// The most buckets kept occupied before they are merged into wider ones.
    package let maxBuckets: Int
    /// The values each dimension of a bucket keeps.
    package let valuesPerBucket: Int
    /// How many dimensions each record is counted in.
    package let dimensionCount: Int
    /// Seconds per bucket now.
    package private(set) var width: Int64 = 1
    /// The occupied buckets by index: a bucket holds the times from `index * width` up to the next.
    package private(set) var buckets: [Int64: Bucket] = [:]
    /// Records without a time (lines that held no record).
    package private(set) var untimed = 0

    /// Empty counts.
    ///
    /// - Parameters:
    ///   - dimensions: How many values each record is counted under.
    ///   - maxBuckets: The most buckets occupied at once (at least 2).
    ///   - valuesPerBucket: The values each dimension of a bucket keeps.
    package init(dimensions: Int, maxBuckets: Int = 2048, valuesPerBucket: Int = TimeBuckets.defaultValuesPerBucket) {
        dimensionCount = dimensions
        self.maxBuckets = max(2, maxBuckets)
        self.valuesPerBucket = valuesPerBucket
    }

    /// Records counted, with a time or without.
    package var records: Int { untimed + buckets.values.reduce(0) { $0 + $1.records } }

    /// Counts a record at `time` (nil: a record without one), its values set by `values`.
    package mutating func add(at time: UnixTime?, values: (inout Bucket) -> Void) {
        guard let time, let second = Self.second(time) else {
            untimed += 1
            return
        }
        let index = Self.floorDivide(second, width)
        if buckets[index] == nil {
            buckets[index] = Bucket(dimensions: dimensionCount, valuesPerBucket: valuesPerBucket)
        }
        buckets[index]!.countRecord()
        values(&buckets[index]!)
        if buckets.count > maxBuckets { widen(to: Self.width(after: width)) }
    }

    /// Adds the counts of another part of the same log (a chunk counted by its worker).
    package mutating func merge(_ other: TimeBuckets) {
        var other = other
        if other.width > width { widen(to: other.width) } else if other.width < width { other.widen(to: width) }
        untimed += other.untimed
        for (index, bucket) in other.buckets {
            if buckets[index] == nil {
                buckets[index] = bucket
            } else {
                buckets[index]!.merge(bucket)
            }
        }
        while buckets.count > maxBuckets { widen(to: Self.width(after: width)) }
    }

    /// The buckets merged into ones `newWidth` wide (a width of the ladder, not narrower).
    mutating func widen(to newWidth: Int64) {
        guard newWidth > width else { return }
        var merged: [Int64: Bucket] = [:]
        merged.reserveCapacity(buckets.count)
        for (index, bucket) in buckets {
            // The bucket's first second, in the wider bucket that holds it (exact: the width divides).
            let wider = Self.floorDivide(index * width, newWidth)
            if merged[wider] == nil {
                merged[wider] = bucket
            } else {
                merged[wider]!.merge(bucket)
            }
        }
        buckets = merged
        width = newWidth
    }

    /// The width after `width`: the ladder's next, then double.
    package static func width(after width: Int64) -> Int64 {
        widths.first { $0 > width } ?? width * 2
    }

    /// The smallest width of the ladder (or past it) that is at least `seconds` and a multiple of `base`.
    package static func width(atLeast seconds: Int64, from base: Int64) -> Int64 {
        var width = base
        while width < seconds { width = Self.width(after: width) }
        return width
    }

    /// The whole second at or before `time`; nil when it is not finite or past 10^15 seconds
    /// either way (so that an index times a width never overflows).
    static func second(_ time: UnixTime) -> Int64? {
        let seconds = time.seconds.rounded(.down)
        guard seconds.isFinite, abs(seconds) < 1e15 else { return nil }
        return Int64(seconds)
    }

    /// `value / divisor` rounded towards minus infinity.
    package static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
