@_spi(RuleAuthoring) import PolicyRuntime
@testable import PolicyAuthoring
import Testing

/// `TimeBuckets` and `ChartColumns`: counts by time that stay bounded and exact whatever the
/// log's span, order and strays.
@Suite("Report time buckets")
struct TimeBucketsTests {
    static let start: Int64 = 1_795_132_800  // 2026-11-20T00:00:00Z

    /// Counts `times` with value `value(time)` in dimension 0.
    static func counted(_ times: some Sequence<Int64>, maxBuckets: Int = 4096, value: (Int64) -> String = { _ in "v" }) -> TimeBuckets {
        var buckets = TimeBuckets(dimensions: 1, maxBuckets: maxBuckets)
        for time in times {
            let name = value(time)
            buckets.add(at: UnixTime(seconds: Double(time))) { $0.add(name, in: 0) }
        }
        return buckets
    }

    @Test("buckets widen along the ladder, never past their bound, and keep every record")
    func widening() {
        // A week, a record every 7 s: 86,400 distinct seconds, far past 64 buckets.
        let times = stride(from: Self.start, to: Self.start + 604_800, by: 7)
        let buckets = Self.counted(times, maxBuckets: 64)
        #expect(buckets.buckets.count <= 64)
        #expect(buckets.records == times.underestimatedCount)
        #expect(TimeBuckets.widths.contains(buckets.width))
        // The narrowest width that holds a week in 64 buckets: 6 h gives 28.
        #expect(buckets.width == 21_600)
        #expect(buckets.buckets.values.allSatisfy { $0.records == $0.dimensions[0].counts["v"] })
        // Widening is exact: each 6 h bucket holds the records whose time falls in it.
        for (index, bucket) in buckets.buckets {
            let inside = times.filter { TimeBuckets.floorDivide($0, 21_600) == index }.count
            #expect(bucket.records == inside)
        }
    }

    @Test("merging the counts of two halves, in either order, equals counting all at once")
    func merging() {
        let first = (0..<3000).map { Self.start + Int64($0 * 37 % 90_000) }
        let second = (0..<3000).map { Self.start + 200_000 + Int64($0 * 53 % 400_000) }
        let name = { (time: Int64) in time % 3 == 0 ? "a" : "b" }
        let whole = Self.counted(first + second, maxBuckets: 100, value: name)
        var merged = Self.counted(first, maxBuckets: 100, value: name)
        merged.merge(Self.counted(second, maxBuckets: 100, value: name))
        var reversed = Self.counted(second, maxBuckets: 100, value: name)
        reversed.merge(Self.counted(first, maxBuckets: 100, value: name))
        #expect(merged == whole)
        #expect(reversed == whole)
    }

    @Test("times before 1970 and fractions fall in the bucket at or before them; non-finite ones count as untimed")
    func flooring() {
        var buckets = TimeBuckets(dimensions: 1)
        for seconds in [-1.5, -1, -0.25, 0, 0.75] { buckets.add(at: UnixTime(seconds: seconds)) { _ in } }
        buckets.add(at: UnixTime(seconds: .infinity)) { _ in }
        buckets.add(at: nil) { _ in }
        #expect(buckets.buckets.mapValues(\.records) == [-2: 1, -1: 2, 0: 2])
        #expect(buckets.untimed == 2)
        #expect(TimeBuckets.floorDivide(-7, 2) == -4 && TimeBuckets.floorDivide(7, 2) == 3 && TimeBuckets.floorDivide(-6, 2) == -3)
    }

    @Test("a handful of records decades away is left out of the chart and counted; a real second cluster is not")
    func strays() throws {
        // Two days of records, one stamped 1970 and two a century ahead.
        var times = Array(stride(from: Self.start, to: Self.start + 172_800, by: 10))
        times += [0, Self.start + 3_155_760_000, Self.start + 3_155_760_060]
        let columns = try #require(ChartColumns(Self.counted(times)))
        #expect(columns.straysBefore == 1 && columns.straysAfter == 2)
        #expect(columns.columns.count <= 161)
        #expect(columns.start <= Self.start && columns.end >= Self.start + 172_800 && columns.end - columns.start < 3 * 86_400)
        #expect(columns.columns.reduce(0) { $0 + $1.records } == times.count - 3)

        // Half the records a year later: not strays, so the chart spans the year.
        let clusters = Array(stride(from: Self.start, to: Self.start + 3600, by: 10)) + Array(stride(from: Self.start + 31_536_000, to: Self.start + 31_539_600, by: 10))
        let wide = try #require(ChartColumns(Self.counted(clusters)))
        #expect(wide.straysBefore == 0 && wide.straysAfter == 0)
        #expect(wide.columns.reduce(0) { $0 + $1.records } == clusters.count)
        #expect(wide.columns.count <= 161 && wide.width >= 86_400)
    }

    @Test("a chart's series are the most frequent values, then one 'other' with the rest of each column")
    func series() throws {
        let times = Array(stride(from: Self.start, to: Self.start + 86_400, by: 5))
        let kid = { (time: Int64) in ["k1", "k1", "k1", "k2", "k2", "k3", "k4"][Int(time / 5 % 7)] }
        let buckets = Self.counted(times, value: kid)
        let columns = try #require(ChartColumns(buckets))
        let series = columns.series(dimension: 0, limit: 2, otherLabel: "other")
        #expect(series.map(\.name) == ["k1", "k2", "other"])
        for index in columns.columns.indices {
            #expect(series.reduce(0) { $0 + $1.counts[index] } == columns.columns[index].records)
        }
        let pinned = columns.series(dimension: 0, limit: 2, otherLabel: "other", first: ["k4"])
        #expect(pinned.map(\.name) == ["k4", "k1", "other"])
        #expect(columns.isExact(dimension: 0))
        #expect(series[2].counts.reduce(0, +) == times.filter { ["k3", "k4"].contains(kid($0)) }.count)
    }
}
