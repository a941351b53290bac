@_spi(RuleAuthoring) import PolicyJOSE

/// Counts of values in bounded memory: the most frequent values exactly while there are few,
/// and the heavy hitters of many (the Misra–Gries summary), with the rest counted together.
///
/// Batch summaries count records by issuer and `kid`, which come from unverified tokens too: a
/// log of unique 40 KB kids must not grow a table without end. At most `capacity` values are
/// kept, each cut to `maxValueBytes`. While no more than `capacity` distinct values are seen the
/// counts are exact; past that a kept count is a lower bound, off by at most
/// `total / (capacity + 1)`, and every value seen that often is kept.
package struct BoundedCounts: Sendable, Equatable {
    /// The values a batch summary keeps per table.
    package static let defaultCapacity = 1000
    /// The longest value kept, in UTF-8 bytes; a longer one is cut and marked with `…`.
    package static let maxValueBytes = 256

    /// The values kept, with their counts.
    package private(set) var counts: [String: Int] = [:]
    /// Every value counted, kept or not.
    package private(set) var total = 0
    /// The most values kept.
    package let capacity: Int
    /// Whether every count is exact: true until a value found no room (then a kept count is a
    /// lower bound).
    package private(set) var exact = true
    /// The last value counted and where its count is: a log's records come in runs of one
    /// issuer and one kid, and comparing a value with the last (its storage, at best) costs
    /// less than hashing it. Invalidated by any change of the table's keys.
    private var last: (value: String, index: Dictionary<String, Int>.Index)?

    /// Empty counts keeping at most `capacity` values (at least one).
    package init(capacity: Int = BoundedCounts.defaultCapacity) {
        self.capacity = max(1, capacity)
    }

    /// Records counted under no kept value (values dropped, and what the kept counts undercount).
    package var notListed: Int { total - counts.values.reduce(0, +) }

    /// Counts `count` occurrences of `value` (cut to `maxValueBytes`), as many single ones would.
    package mutating func add(_ value: String, count: Int = 1) {
        guard count > 0 else { return }
        if let last, last.value == value {
            total += count
            counts.values[last.index] += count
            return
        }
        let key = Self.cut(value)
        var left = count
        while left > 0 {
            if let index = counts.index(forKey: key) {
                counts.values[index] += left
                total += left
                last = (value, index)
                return
            }
            if counts.count < capacity {
                counts[key] = left
                total += left
                last = nil
                return
            }
            // Misra–Gries: an occurrence with no room takes one from every kept value; amortised
            // O(1) an occurrence, since each such step removes capacity + 1 from the counted mass.
            total += 1
            left -= 1
            for (name, kept) in counts { counts[name] = kept > 1 ? kept - 1 : nil }
            last = nil
            exact = false
        }
    }

    /// Adds another summary (a chunk counted by its worker) and trims back to `capacity`, as
    /// mergeable summaries do: every count drops by the (capacity + 1)-th largest.
    package mutating func merge(_ other: BoundedCounts) {
        last = nil
        total += other.total
        exact = exact && other.exact
        counts.merge(other.counts, uniquingKeysWith: +)
        guard counts.count > capacity else { return }
        exact = false
        let threshold = counts.values.sorted(by: >)[capacity]
        counts = counts.compactMapValues { $0 > threshold ? $0 - threshold : nil }
    }

    /// Equal when they hold the same counts of the same total under the same capacity.
    package static func == (lhs: BoundedCounts, rhs: BoundedCounts) -> Bool {
        lhs.counts == rhs.counts && lhs.total == rhs.total && lhs.capacity == rhs.capacity && lhs.exact == rhs.exact
    }

    static func cut(_ value: String) -> String {
        guard value.utf8.count > maxValueBytes else { return value }
        var kept = ""
        var bytes = 0
        for scalar in value.unicodeScalars {
            bytes += UTF8.width(scalar)
            guard bytes <= maxValueBytes - 3 else { break }
            kept.unicodeScalars.append(scalar)
        }
        return kept + "…"
    }
}
