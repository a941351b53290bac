@_spi(RuleAuthoring) import PolicyJOSE
internal import CPrefetch

/// A key that carries a well-mixed 64-bit hash of itself, taken once, for the frequency sketch.
protocol SketchedKey: Hashable {
    /// Uniform over the keys; the sketch mixes it with a seed of its own.
    var sketchHash: UInt64 { get }
    /// What the cache's index places the key by: `hashValue` unless the key holds a hash taken
    /// with the process's seed already, which no one who chooses keys can aim collisions at.
    var tableHash: Int { get }
    /// The key as an entry keeps it, holding nothing beyond itself in memory (`TokenText.kept`).
    var kept: Self { get }
}

extension SketchedKey {
    var tableHash: Int { hashValue }
    var kept: Self { self }
}

/// Entries kept within a memory budget and evicted one at a time: CLOCK (second chance) picks
/// the entry to give up, and TinyLFU admission (`FrequencySketch`) decides whether a newcomer
/// is worth it.
///
/// A hit is an index lookup (`SlotIndex`), a reference bit set and, once the cache has been
/// full, a sketch count: no allocation, nothing proportional to the size. When an entry does
/// not fit, the hand sweeps the slots, clearing reference bits, to the first entry not asked for
/// since it last passed; the newcomer replaces that entry only if the sketch had seen it more
/// often lately.
///
/// Why this policy, by measurement (Benchmarks/RESULTS.md, "Issue 30, item 5"): token logs and
/// loads bring tokens round in turn, each coming back after all the others. On that order any
/// policy that always admits evicts each token just before it comes back — plain CLOCK, LRU,
/// FIFO, and S3-FIFO too, whose ghost queue remembers no more keys than its main queue holds.
/// 200,000 RS256 tokens × 5 through `batch --cache-size 16MiB` (room for about 110,000 checks):
/// plain CLOCK answered none, evicted 890,917 times and ran at 0.72 of no cache; with admission
/// the cache keeps what it holds and answered 43.6% (the most a cache of that size can, 43.7%)
/// at 1.50 of no cache, evicting 295 times. A hot set outlasts a stream of one-off tokens the
/// same way: they are seen once and never displace it. CLOCK rather than LRU for the eviction:
/// a hit sets one bit instead of moving a list node, under the same lock.
///
/// Not thread-safe: its owner keeps it behind a lock.
struct ClockCache<Key: SketchedKey, Value> {
    /// An entry; the cost before the value packs a signature check's slot into 88 bytes.
    private struct Slot {
        let key: Key
        let cost: Int
        var value: Value
        var referenced: Bool
    }

    /// The bytes the entries may take (the budget less the sketch).
    let limit: Int
    /// The sightings a key needs before it is kept while there is room.
    let admitAfter: Int
    /// What an entry's owner is expected to cost it, besides its slot: whether one more fits.
    private let typicalCost: Int
    /// The bytes the entries take now, as their owner costed them.
    private(set) var used = 0
    /// Hits, misses, evictions and declined offers since the cache was made.
    private(set) var counts = SignatureCache.Statistics()
    /// Whether an entry has ever not fitted (evicted or declined for room): from then on hits
    /// are counted in the sketch (`sighting`). Set once, never cleared: a cache whose entries
    /// cost more than the typical one can be full while `hasRoom` still says otherwise.
    private var filled = false
    private var index = SlotIndex()
    /// Reserved whole at the first entry, so that it never copies itself to grow: untouched
    /// capacity takes address space, not memory.
    private var slots: [Slot] = []
    private var hand = 0
    /// Sized for a full cache; it takes memory as keys arrive.
    private let sketch: FrequencySketch

    /// The memory an entry takes besides what its owner costs: its slot, and its share of the
    /// index at the index's lowest load (a quarter: 32 bytes).
    static var overheadPerEntry: Int {
        MemoryLayout<Slot>.stride + 32
    }

    /// A cache of at most `budget` bytes, sketch included, for entries whose owner costs them
    /// about `typicalCost` bytes (which sizes the sketch); a key is kept from its
    /// `admitAfter`-th sighting on.
    init(budget: Int, typicalCost: Int, admitAfter: Int = 1) {
        sketch = FrequencySketch(keys: max(8, budget / (typicalCost + Self.overheadPerEntry)))
        limit = max(0, budget - sketch.byteCount)
        self.admitAfter = admitAfter
        self.typicalCost = typicalCost
    }

    /// The bytes the cache takes: its entries and its sketch.
    var bytes: Int { used + sketch.byteCount }

    /// The number of entries.
    var count: Int { slots.count }

    /// The value kept for `key`, marking it asked for; nil, counted as a miss, when there is none.
    mutating func value(for key: Key) -> Value? {
        value(tableHash: key.tableHash, sketchHash: key.sketchHash) { $0 == key }
    }

    /// The value kept for the key whose hashes are `tableHash` and `sketchHash` and which
    /// `matches`, marking it asked for; nil, counted as a miss, when there is none: a lookup by
    /// what the key is made of, for a caller that has not made the key.
    mutating func value(tableHash: Int, sketchHash: UInt64, where matches: (Key) -> Bool) -> Value? {
        sighting(tableHash: tableHash, sketchHash: sketchHash, where: matches, found: { $0 }, missing: nil).0
    }

    /// Counts a sighting of the key whose hashes are `tableHash` and `sketchHash` and which
    /// `matches`, as `value(tableHash:sketchHash:where:)` does, and hands its value in place to
    /// `found` (which may change it, without another count or mark); `missing` when none is kept.
    /// A caller that makes something of the value, or replaces it, copies nothing and looks the
    /// key up once. With the key's frequency before and after this sighting: what a caller that
    /// also asks whether the key was seen before, and whether its value would be kept
    /// (`admits(frequency:)`, `offer(_:for:ownCost:frequency:)`), reads at the cost of one.
    ///
    /// A hit before the cache was first full is not counted (nil sightings, the only ones): the
    /// counts decide which entry gives way to a newcomer, and none has given way yet (Caffeine,
    /// likewise, counts nothing before its cache is half full). A miss is always counted, so a
    /// first sighting is told from a second. A key hit often before the cache filled starts
    /// from the count of its misses when it does; its reference bit (CLOCK) keeps it while it
    /// is hit between two turns of the hand, and its hits are counted from then on.
    mutating func sighting<Result>(tableHash: Int, sketchHash: UInt64, where matches: (Key) -> Bool, found: (inout Value) -> Result,
                                   missing: Result) -> (Result, sightings: (before: Int, after: Int)?) {
        guard let slot = index.slot(hash: tableHash, where: { matches(slots[$0].key) }) else {
            counts.misses += 1
            return (missing, sketch.record(sketchHash))
        }
        counts.hits += 1
        slots[slot].referenced = true
        let sightings = filled ? sketch.record(sketchHash) : nil
        return (found(&slots[slot].value), sightings)
    }

    /// Asks the processor to bring in, without waiting for them, what the lookups of the next
    /// two keys will read (their table hashes, nil where unknown): for `after`, its bucket of
    /// the index; for `next`, the slot its bucket points at (the first whose hash matches: most
    /// likely the key's), found by reading the index. A caller that knows the keys it will look
    /// up next readies them while it works on this one: in a cache of many entries, a lookup
    /// otherwise waits for the index and then the slot to come from memory. Counts and changes
    /// nothing.
    func ready(next: Int?, after: Int?) {
        if let after { index.ready(hash: after) }
        guard let next, let slot = index.slot(hash: next, where: { _ in true }) else { return }
        slots.withUnsafeBufferPointer { slots in
            let start = UnsafeRawPointer(slots.baseAddress! + slot)
            for offset in stride(from: 0, to: MemoryLayout<Slot>.size, by: 64) { cprefetch(start + offset) }
            cprefetch(start + MemoryLayout<Slot>.size - 1)
        }
    }

    /// Whether an entry of the typical cost still fits without evicting one.
    private var hasRoom: Bool {
        used + typicalCost + Self.overheadPerEntry <= limit
    }

    /// Counts a sighting of `key` whose value the caller holds already, as `value(for:)` would,
    /// without counting a hit or a miss; the caller then offers the value.
    mutating func sighted(_ key: Key) {
        sketch.record(key.sketchHash)
    }

    /// How often the sketch estimates `key` was sighted lately: never fewer times than it was,
    /// and more when it shares its counters with other keys.
    func frequency(of key: Key) -> Int {
        frequency(sketchHash: key.sketchHash)
    }

    /// How often the sketch estimates the key whose sketch hash is `sketchHash` was sighted lately.
    func frequency(sketchHash: UInt64) -> Int {
        sketch.frequency(of: sketchHash)
    }

    /// Whether `key` has been sighted often enough to be kept while there is room.
    func admits(_ key: Key) -> Bool {
        admits(sketchHash: key.sketchHash)
    }

    /// Whether a value for the key whose sketch hash is `sketchHash` may be kept if offered
    /// now, so that a caller prepares none `offer` would decline: the key was sighted often
    /// enough, and a typical entry still fits or, in a full cache, the key was sighted more than
    /// once (`offer` lets a newcomer displace an entry only when the sketch saw it more often:
    /// never one seen once).
    func admits(sketchHash: UInt64) -> Bool {
        admits(frequency: sketch.frequency(of: sketchHash))
    }

    /// `admits(sketchHash:)` for a key whose frequency the caller read (`sighting`).
    func admits(frequency: Int) -> Bool {
        frequency >= admitAfter && (frequency >= 2 || hasRoom)
    }

    /// The value kept for `key`, neither counted nor marked as asked for.
    func peek(_ key: Key) -> Value? {
        slot(of: key, hash: key.tableHash).map { slots[$0].value }
    }

    /// Offers `value` for `key`, which its owner costs at `ownCost` bytes (what it holds beyond
    /// the slot): kept when it fits, or when the sketch had seen `key` more often than the entry
    /// it would displace. Entries are evicted one by one until it fits.
    ///
    /// `frequency` is the key's, when the caller read it at its sighting (`sighting`): the
    /// sketch is not asked again.
    mutating func offer(_ value: Value, for key: Key, ownCost: Int, frequency known: Int? = nil) {
        let cost = ownCost + Self.overheadPerEntry
        let hash = key.tableHash
        if let slot = slot(of: key, hash: hash) {
            // Another thread stored it meanwhile; the answer is the same.
            slots[slot].value = value
            return
        }
        let frequency = known ?? sketch.frequency(of: key.sketchHash)
        guard frequency >= admitAfter else { return }
        guard cost <= limit else {
            counts.declined += 1
            return
        }
        let slot: Int
        if used + cost <= limit {
            if slots.capacity == 0 { slots.reserveCapacity(limit / Self.overheadPerEntry) }
            slot = slots.count
            slots.append(Slot(key: key.kept, cost: cost, value: value, referenced: false))
        } else {
            filled = true
            slot = victim()
            // The sightings before the one that brought the newcomer: in a cycle, where every
            // key comes as often, the newcomer has just been counted and the incumbent not yet,
            // and counting that would swap them, answering nothing, like LRU.
            guard frequency - 1 > sketch.frequency(of: slots[slot].key.sketchHash) else {
                counts.declined += 1
                return
            }
            index.remove(slot: slot, hash: slots[slot].key.tableHash)
            used -= slots[slot].cost
            counts.evictions += 1
            slots[slot] = Slot(key: key.kept, cost: cost, value: value, referenced: false)
            // The newcomer gets a whole turn of the hand before it is looked at.
            hand = slot + 1
        }
        index.insert(slot: slot, hash: hash)
        used += cost
        while used > limit { evict(except: key) }
    }

    /// The slot that holds `key`, whose hash is `hash`.
    private func slot(of key: Key, hash: Int) -> Int? {
        index.slot(hash: hash) { slots[$0].key == key }
    }

    /// The slot of the next entry under the hand not asked for since the hand last passed it,
    /// clearing the reference bits of those that were.
    private mutating func victim() -> Int {
        while true {
            if hand >= slots.count { hand = 0 }
            guard slots[hand].referenced else { return hand }
            slots[hand].referenced = false
            hand += 1
        }
    }

    /// Evicts the next victim other than `kept` (a costlier newcomer that needs more room),
    /// moving the last slot into its place.
    private mutating func evict(except kept: Key) {
        var slot = victim()
        while slots[slot].key == kept {
            // After one turn of the hand every other entry's bit is clear: the next look finds one.
            hand = slot + 1
            slot = victim()
        }
        index.remove(slot: slot, hash: slots[slot].key.tableHash)
        used -= slots[slot].cost
        counts.evictions += 1
        let last = slots.removeLast()
        if slot < slots.count {
            slots[slot] = last
            index.move(from: slots.count, to: slot, hash: last.key.tableHash)
        }
    }
}
