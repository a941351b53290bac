@_spi(RuleAuthoring) import PolicyJOSE
internal import CPrefetch

/// Where each key of `ClockCache` lies: slot numbers by key hash, in a table of eight bytes a
/// bucket that `ClockCache` keeps at most half full.
///
/// A `Dictionary` of the cache's keys would hold each key a second time with its slot number, a
/// signature check's 64 bytes of digests twice over at a load factor of 3/8 to 3/4, and take
/// three times the memory of the slots themselves; this table holds only the slot number and the
/// hash's low 32 bits, which settle most probes without reading a slot. Open addressing with
/// linear probing, and deletion by shifting the entries that follow back (Knuth's Algorithm R),
/// so a lookup never walks tombstones. The hashes are seeded per process (`SketchedKey.tableHash`):
/// no one can choose tokens that fall into one run of buckets.
struct SlotIndex {
    /// Per bucket: 0 when empty, else the slot number plus one in the high 32 bits and the key's
    /// hash's low 32 bits in the low ones.
    private var buckets: [UInt64] = Array(repeating: 0, count: 16)
    private(set) var count = 0

    /// The slot of the key whose hash is `hash`, where `matches` says whether a slot holds it.
    func slot(hash: Int, where matches: (Int) -> Bool) -> Int? {
        let mask = buckets.count - 1
        let tag = UInt64(UInt32(truncatingIfNeeded: hash))
        var bucket = hash & mask
        while buckets[bucket] != 0 {
            let entry = buckets[bucket]
            if entry & 0xFFFF_FFFF == tag, matches(Int(entry >> 32) - 1) { return Int(entry >> 32) - 1 }
            bucket = (bucket + 1) & mask
        }
        return nil
    }

    /// Asks the processor to bring in the bucket a lookup of `hash` starts at (`cprefetch`).
    func ready(hash: Int) {
        buckets.withUnsafeBufferPointer { cprefetch($0.baseAddress! + (hash & ($0.count - 1))) }
    }

    /// Records that `slot` holds a key whose hash is `hash`, a key the index does not hold.
    mutating func insert(slot: Int, hash: Int) {
        if (count + 1) * 2 > buckets.count { grow() }
        let mask = buckets.count - 1
        var bucket = hash & mask
        while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
        buckets[bucket] = UInt64(slot + 1) << 32 | UInt64(UInt32(truncatingIfNeeded: hash))
        count += 1
    }

    /// Forgets `slot`, which holds a key whose hash is `hash`.
    mutating func remove(slot: Int, hash: Int) {
        let mask = buckets.count - 1
        var hole = bucket(of: slot, hash: hash)
        var next = (hole + 1) & mask
        while buckets[next] != 0 {
            // An entry may fill the hole unless its home bucket lies after the hole, up to it.
            let home = Int(buckets[next] & 0xFFFF_FFFF) & mask
            if (next - home) & mask >= (next - hole) & mask {
                buckets[hole] = buckets[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        buckets[hole] = 0
        count -= 1
    }

    /// Records that the key whose hash is `hash` moved from slot `old` to slot `new`.
    mutating func move(from old: Int, to new: Int, hash: Int) {
        let bucket = bucket(of: old, hash: hash)
        buckets[bucket] = UInt64(new + 1) << 32 | buckets[bucket] & 0xFFFF_FFFF
    }

    /// The bucket that points at `slot`.
    private func bucket(of slot: Int, hash: Int) -> Int {
        let mask = buckets.count - 1
        let entry = UInt64(slot + 1) << 32 | UInt64(UInt32(truncatingIfNeeded: hash))
        var bucket = hash & mask
        while buckets[bucket] != entry { bucket = (bucket + 1) & mask }
        return bucket
    }

    /// Doubles the table, placing every entry again.
    private mutating func grow() {
        let old = buckets
        buckets = Array(repeating: 0, count: old.count * 2)
        let mask = buckets.count - 1
        for entry in old where entry != 0 {
            var bucket = Int(entry & 0xFFFF_FFFF) & mask
            while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
            buckets[bucket] = entry
        }
    }
}
