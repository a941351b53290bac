import Foundation
import PolicyRuntime
import PolicyJOSE
import Testing

/// Bounded work on hostile input: summary tables of bounded size, JSON depth within what the
/// recursive parser survives on any thread.
@Suite("Bounds")
struct BoundsTests {
    @Test("BoundedCounts is exact while values are few, keeps a heavy hitter among a flood of unique values, and merges")
    func boundedCounts() {
        var few = BoundedCounts(capacity: 10)
        for value in ["a", "b", "a", "c", "a"] { few.add(value) }
        #expect(few.counts == ["a": 3, "b": 1, "c": 1] && few.notListed == 0 && few.total == 5 && few.exact)
        var flood = BoundedCounts(capacity: 50)
        for index in 0..<20_000 {
            flood.add(index % 4 == 0 ? "genuine-kid" : "junk-\(index)")
        }
        #expect(flood.counts.count <= 50 && flood.total == 20_000 && !flood.exact)
        #expect((flood.counts["genuine-kid"] ?? 0) >= 5000 - 20_000 / 51)
        var left = BoundedCounts(capacity: 3), right = BoundedCounts(capacity: 3)
        for value in ["x", "x", "x", "y", "z"] { left.add(value) }
        for value in ["x", "w", "v"] { right.add(value) }
        #expect(left.exact && right.exact)
        left.merge(right)
        #expect(left.counts.count <= 3 && left.total == 8 && left.counts["x"] != nil && !left.exact)
        var long = BoundedCounts()
        long.add(String(repeating: "é", count: 1000))
        long.add(String(repeating: "é", count: 1000))
        #expect(long.counts.count == 1 && long.counts.values.first == 2)
        #expect(long.counts.keys.allSatisfy { $0.utf8.count <= BoundedCounts.maxValueBytes && $0.hasSuffix("…") })
    }

    @Test("BoundedCounts counts runs of one value exactly, across new values, Misra–Gries steps and merges")
    func boundedCountsRuns() {
        // Equal values in distinct storage, as each record's issuer is: a run is counted by value.
        let issuer = { String(decoding: Array("https://issuer.example".utf8), as: UTF8.self) }
        var runs = BoundedCounts(capacity: 2)
        for _ in 0..<5 { runs.add(issuer()) }
        runs.add("other")
        for _ in 0..<3 { runs.add(issuer()) }
        #expect(runs.counts == ["https://issuer.example": 8, "other": 1])
        // A third value with no room takes one from each kept value (other leaves); the run goes on.
        runs.add("third")
        for _ in 0..<2 { runs.add(issuer()) }
        #expect(runs.counts == ["https://issuer.example": 9] && runs.total == 12)
        var merged = runs
        merged.merge(runs)
        merged.add(issuer())
        #expect(merged.counts == ["https://issuer.example": 19] && merged.total == 25)
        #expect(runs != merged)
    }

    @Test("BoundedCounts counts a run of n at once as n single adds would, with room, without room and across Misra–Gries steps")
    func boundedCountsWeighted() {
        // A stream of values in runs, over a table too small for them: every branch of `add`.
        var generator = SystemRandomNumberGenerator()
        for capacity in [1, 3, 8] {
            var runs: [(String, Int)] = []
            for _ in 0..<400 { runs.append(("v\(Int.random(in: 0..<12, using: &generator))", Int.random(in: 1...6, using: &generator))) }
            var single = BoundedCounts(capacity: capacity), weighted = BoundedCounts(capacity: capacity)
            for (value, count) in runs {
                for _ in 0..<count { single.add(value) }
                weighted.add(value, count: count)
            }
            #expect(weighted == single, "capacity \(capacity)")
            #expect(weighted.notListed == single.notListed && weighted.total == runs.reduce(0) { $0 + $1.1 })
        }
        var none = BoundedCounts()
        none.add("a", count: 0)
        #expect(none.total == 0 && none.counts.isEmpty)
    }

    @Test("JSON nesting: the parser refuses past 1,000 levels whatever it is asked, on a task's stack; a policy may set at most 512")
    func jsonDepth() async throws {
        for depth in [999, 1000, 1001, 50_000] {
            let text = Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
            let result = await Task.detached { Result { () throws(JOSEError) in try JSONParser(maxDepth: .max).parse(text) } }.value
            switch result {
            case .success: #expect(depth <= JSONParser.deepestSupported, "\(depth)")
            case let .failure(error): #expect(depth > JSONParser.deepestSupported && error.code == .jsonTooDeep, "\(depth): \(error)")
            }
        }
    }
}
