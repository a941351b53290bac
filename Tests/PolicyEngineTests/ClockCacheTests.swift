@testable import PolicyRuntime
@testable import PolicyJOSE
import Testing

/// The eviction and admission under the signature and decoded-token caches: no cliff when the
/// keys outnumber the room, a hot set kept through a stream of one-off keys, the memory bound.
@Suite("Clock cache")
struct ClockCacheTests {
    /// A key whose sketch hash is its number, mixed.
    struct Number: SketchedKey {
        let value: Int
        var sketchHash: UInt64 { UInt64(bitPattern: Int64(value)) &* 0x9E37_79B9_7F4A_7C15 }
    }

    static let perEntry = ClockCache<Number, Int>.overheadPerEntry

    /// A cache with room for somewhat fewer than `entries` entries of no cost of their own: its
    /// sketch takes a share of the budget.
    static func cache(entries: Int, admitAfter: Int = 1) -> ClockCache<Number, Int> {
        ClockCache(budget: entries * perEntry, typicalCost: 0, admitAfter: admitAfter)
    }

    /// How many entries of no cost of their own `cache` holds.
    static func room(_ cache: ClockCache<Number, Int>) -> Int {
        cache.limit / perEntry
    }

    /// Looks `key` up and, on a miss, offers it; true on a hit.
    static func ask(_ cache: inout ClockCache<Number, Int>, _ key: Int, cost: Int = 0) -> Bool {
        if cache.value(for: Number(value: key)) != nil { return true }
        cache.offer(key, for: Number(value: key), ownCost: cost)
        return false
    }

    @Test("a sighting counted reports the sketch's estimates from just before and just after it, through halvings and collisions")
    func sightingReportsItsEstimates() {
        let sketch = FrequencySketch(keys: 8)
        var generator = SystemRandomNumberGenerator()
        var seen = 0
        for step in 0..<(sketch.sampleSize * 5) {
            // A few hot keys and many one-offs, so that counters saturate, collide and are halved.
            let key = step % 3 == 0 ? UInt64(step % 5) : generator.next()
            let before = sketch.frequency(of: key)
            let counted = sketch.record(key)
            #expect(counted.before == before && counted.after == sketch.frequency(of: key), "step \(step)")
            if counted.before > 0 { seen += 1 }
        }
        #expect(seen > sketch.sampleSize, "the hot keys were known on most of their sightings")
    }

    @Test("a hit is counted in the sketch only once the cache was full: before, nothing gave way to a newcomer; a miss is always counted")
    func hitsCountedOnceFull() {
        var cache = Self.cache(entries: 64)
        let room = Self.room(cache)
        #expect(!Self.ask(&cache, 0))
        for _ in 0..<5 { #expect(Self.ask(&cache, 0)) }
        #expect(cache.frequency(of: Number(value: 0)) == 1, "hits while there was room left the count at the first sighting's")
        for key in 1..<room { _ = Self.ask(&cache, key) }
        #expect(cache.count == room)
        for _ in 0..<2 { #expect(Self.ask(&cache, 0)) }
        #expect(cache.frequency(of: Number(value: 0)) == 1, "no newcomer has found the cache full yet")
        #expect(!Self.ask(&cache, room) && cache.count == room, "a newcomer seen once does not displace an entry")
        for _ in 0..<5 { #expect(Self.ask(&cache, 0)) }
        #expect(cache.frequency(of: Number(value: 0)) == 6, "hits in a cache that was full are counted")
        // A missing key is counted whether or not there is room.
        let before = cache.frequency(of: Number(value: -1))
        _ = cache.value(for: Number(value: -1))
        #expect(cache.frequency(of: Number(value: -1)) == before + 1)
    }

    @Test("hits are counted once an entry did not fit, in a cache whose entries cost more than the typical one: an entry of that cost would still fit")
    func hitsCountedOnceAnEntryDidNotFit() {
        var cache = Self.cache(entries: 64)
        // Entries of twice the typical room, until the room left is one to two typical entries.
        var key = 0
        while cache.limit - cache.used >= 3 * Self.perEntry {
            _ = Self.ask(&cache, key, cost: Self.perEntry)
            key += 1
        }
        if cache.limit - cache.used >= 2 * Self.perEntry {
            _ = Self.ask(&cache, key)
            key += 1
        }
        #expect((Self.perEntry..<2 * Self.perEntry).contains(cache.limit - cache.used))
        for _ in 0..<3 { #expect(Self.ask(&cache, 0)) }
        #expect(cache.frequency(of: Number(value: 0)) == 1, "no entry has given way yet")
        #expect(!Self.ask(&cache, key, cost: Self.perEntry) && cache.count == key, "the newcomer did not fit and was declined")
        for _ in 0..<5 { #expect(Self.ask(&cache, 0)) }
        #expect(cache.frequency(of: Number(value: 0)) == 6, "hits are counted once an entry did not fit")
    }

    @Test("2N keys in turn, five times, through a cache with room for N: it keeps answering (a cache that empties when full, like plain CLOCK or LRU, answers none)")
    func cycleTwiceTheRoom() {
        var cache = Self.cache(entries: 1000)
        let room = Self.room(cache)
        var hits = 0
        for pass in 0..<5 {
            for key in 0..<(2 * room) where Self.ask(&cache, key) && pass > 0 { hits += 1 }
        }
        // The most any cache of N can answer is half of each later pass.
        let rate = Double(hits) / Double(4 * 2 * room)
        #expect(rate > 0.35, "hit rate \(rate) over the later passes")
        #expect(cache.count <= room && cache.used <= cache.limit)
    }

    @Test("a hot set of N/2 keys keeps hitting while three times the room in one-off keys streams past each round")
    func hotSetThroughAStream() {
        var cache = Self.cache(entries: 1000)
        let room = Self.room(cache)
        var oneOff = 1_000_000
        var hotHits = 0
        for round in 0..<10 {
            // From the third round on: a few hot keys may have been given up while the cache
            // filled (before they were counted), and come back in the second.
            for key in 0..<(room / 2) where Self.ask(&cache, key) && round > 1 { hotHits += 1 }
            for _ in 0..<(3 * room) {
                _ = Self.ask(&cache, oneOff)
                oneOff += 1
            }
        }
        #expect(Double(hotHits) >= 0.99 * Double(8 * (room / 2)), "\(hotHits) of \(8 * (room / 2)) hot lookups answered")
        #expect(cache.counts.declined > 0)
    }

    @Test("a new hot set takes over from an old one as the sketch ages")
    func popularityShifts() {
        var cache = Self.cache(entries: 500)
        let room = Self.room(cache)
        for _ in 0..<20 { for key in 0..<room { _ = Self.ask(&cache, key) } }
        var lateHits = 0
        for round in 0..<40 {
            for key in 10_000..<(10_000 + room) where Self.ask(&cache, key) && round >= 30 { lateHits += 1 }
        }
        #expect(Double(lateHits) >= 0.9 * Double(10 * room), "\(lateHits) of \(10 * room)")
    }

    @Test("entries of every size: the cache never takes more than its budget, finds every entry it holds, and a costlier newcomer evicts others, never itself")
    func memoryBound() {
        var cache = Self.cache(entries: 200)
        var random = SystemRandomNumberGenerator()
        var overBudget = 0
        for _ in 0..<20_000 {
            _ = Self.ask(&cache, Int.random(in: 0..<2_000, using: &random), cost: Int.random(in: 0..<300, using: &random))
            if cache.used > cache.limit { overBudget += 1 }
        }
        #expect(overBudget == 0 && cache.bytes <= 200 * Self.perEntry)
        // Through all the evictions and moves, the index finds every entry, and only those.
        let found = (0..<2_000).filter { cache.value(for: Number(value: $0)) == $0 }
        #expect(found.count == cache.count && cache.count > 10)
        // One entry that needs most of the room pushes out as many as it takes.
        for _ in 0..<10 { _ = Self.ask(&cache, -1, cost: cache.limit * 3 / 4) }
        #expect(cache.value(for: Number(value: -1)) != nil && cache.used <= cache.limit)
        #expect(cache.counts.evictions > 0)
    }

    @Test("with admitAfter 2, a key is kept from its second sighting; one larger than the whole budget never is")
    func admission() {
        var cache = Self.cache(entries: 100, admitAfter: 2)
        #expect(!Self.ask(&cache, 1) && !Self.ask(&cache, 1) && Self.ask(&cache, 1))
        for _ in 0..<2 { _ = Self.ask(&cache, 2, cost: cache.limit + 1) }
        #expect(cache.value(for: Number(value: 2)) == nil && cache.counts.declined == 1)
        #expect(cache.counts.hits == 1)
    }

    /// What `admits` tells a caller deciding whether to prepare a value: while there is room a
    /// first sighting is kept; once full, a key seen once would be declined by `offer`, and
    /// `admits` says so before the value is made, while a key seen again may displace one.
    ///
    /// The sketch is seeded per cache, and may count a key that shares its counters with others
    /// as seen more often than it was (never less): once full, the key tried as "seen once" is
    /// the first whose count is exactly one.
    @Test("admits refuses only what offer would decline: a first sighting is kept while there is room, and once full only a key seen again may be")
    func admitsAsOfferDoes() {
        var cache = Self.cache(entries: 100)
        let room = Self.room(cache)
        for key in 0..<room {
            cache.sighted(Number(value: key))
            #expect(cache.admits(sketchHash: Number(value: key).sketchHash), "a first sighting refused while there is room: \(key)")
            cache.offer(key, for: Number(value: key), ownCost: 0)
            #expect(cache.peek(Number(value: key)) != nil, "admitted but not kept: \(key)")
        }
        var key = room
        cache.sighted(Number(value: key))
        while cache.frequency(of: Number(value: key)) > 1 {
            key += 1
            cache.sighted(Number(value: key))
        }
        #expect(key < room + 50, "the sketch counts most new keys once")
        // Full: the key seen once is refused and stays out when offered; seen again it may be
        // kept, and seen more often than the entries (each seen once) it displaces one.
        #expect(!cache.admits(sketchHash: Number(value: key).sketchHash))
        cache.offer(key, for: Number(value: key), ownCost: 0)
        #expect(cache.peek(Number(value: key)) == nil)
        cache.sighted(Number(value: key))
        #expect(cache.admits(sketchHash: Number(value: key).sketchHash))
        for _ in 0..<6 { cache.sighted(Number(value: key)) }
        cache.offer(key, for: Number(value: key), ownCost: 0)
        #expect(cache.peek(Number(value: key)) != nil)
    }
}

/// A token's key compares its bytes: two texts Swift's `==` takes as one (canonically
/// equivalent, a precomposed and a decomposed accent) are two tokens, whatever their digests,
/// and a lookup by a line's bytes finds exactly the key made from the same text.
@Suite("Token keys")
struct TokenKeyTests {
    @Test("keys are equal byte for byte, not by canonical equivalence; a lookup by bytes finds the key of those bytes only")
    func byteExact() {
        let composed = "{\"payload\":\"e30\",\"header\":{\"kid\":\"caf\u{E9}\"},\"signature\":\"x\"}"
        let decomposed = "{\"payload\":\"e30\",\"header\":{\"kid\":\"cafe\u{301}\"},\"signature\":\"x\"}"
        #expect(composed == decomposed, "Swift's String == is canonical equivalence, the premise of this test")
        let limits = TokenLimits()
        // The same digest forced on both: only the bytes may tell them apart.
        let first = DecodedTokenCache.Key(token: TokenText(composed), limits: limits, digest: 7)
        let second = DecodedTokenCache.Key(token: TokenText(decomposed), limits: limits, digest: 7)
        #expect(first != second)
        #expect(first == DecodedTokenCache.Key(token: TokenText(composed), limits: limits, digest: 7))
        // A token that is bytes of a log line is the same key as its text, and no other.
        let line = Array("{\"token\":\(composed)}".utf8)
        let start = line.firstIndex(of: UInt8(ascii: ":"))! + 1
        let fromLine = DecodedTokenCache.Key(token: TokenText(line: line[start..<line.count - 1]), limits: limits, digest: 7)
        #expect(fromLine == first && first == fromLine && fromLine != second && second != fromLine)
        #expect(DecodedTokenCache.Key(token: TokenText(line: line[start..<line.count - 1]), limits: limits) == DecodedTokenCache.Key(token: TokenText(composed), limits: limits))
        var text = decomposed
        text.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            #expect(!first.holds(raw, digest: 7, limits: limits))
            #expect(second.holds(raw, digest: 7, limits: limits))
            #expect(!second.holds(raw, digest: 8, limits: limits))
            #expect(DecodedTokenCache.Key.digest(of: raw) == DecodedTokenCache.Key(token: TokenText(decomposed), limits: limits).digest)
        }
    }

    /// A log's lines are judged from a block that holds a chunk of them (`LineBlock`): a cache
    /// that kept a token as a part of its line would keep the whole block in memory.
    @Test("a cache keeps a token read from a block of lines as bytes of its own, and finds it by them")
    func keptKeyOwnsItsBytes() {
        let token = Array("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln".utf8)
        var block = Array(repeating: UInt8(ascii: " "), count: 64 << 10)
        block.replaceSubrange(1000..<1000 + token.count, with: token)
        let limits = TokenLimits()
        var cache = ClockCache<DecodedTokenCache.Key, Int>(budget: 1 << 20, typicalCost: 1024, admitAfter: 0)
        cache.offer(42, for: DecodedTokenCache.Key(token: TokenText(line: block[1000..<1000 + token.count]), limits: limits), ownCost: 100)
        #expect(cache.value(for: DecodedTokenCache.Key(token: TokenText(String(decoding: token, as: UTF8.self)), limits: limits)) == 42)
        // Written in place only if nothing else holds the block: a copy on write moves it.
        let before = block.withUnsafeBufferPointer { $0.baseAddress }
        block[0] = UInt8(ascii: "x")
        #expect(block.withUnsafeBufferPointer { $0.baseAddress } == before, "the cache holds the block")
        #expect(cache.value(for: DecodedTokenCache.Key(token: TokenText(String(decoding: token, as: UTF8.self)), limits: limits)) == 42)
    }
}
