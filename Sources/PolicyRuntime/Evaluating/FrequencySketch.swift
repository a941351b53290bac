#if canImport(Glibc)
internal import Glibc
#else
internal import Darwin
@_spi(RuleAuthoring) import PolicyJOSE
#endif

/// How often each key was asked for lately, approximately and in fixed memory: the TinyLFU
/// frequency sketch (Einziger, Friedman and Manes, 2017) that `ClockCache` admits entries by.
///
/// A key's first sighting in a sample only sets two bits of a doorkeeper (a Bloom filter);
/// later ones are counted in a count-min sketch of one-byte counters that saturate at 15, the
/// key's four counters in one 64-byte block (one cache line), one in each quarter of it. The
/// estimate is the least of the four, plus one if the doorkeeper knows the key; collisions can
/// only raise it. Keys seen once — a stream of unique tokens — thus never crowd the counters of
/// those that come back. Every `sampleSize` sightings the counters are halved and the
/// doorkeeper cleared, so what was popular long ago fades. Keys are given by a well-mixed
/// 64-bit hash, taken once per key by its owner, which the sketch mixes with a seed of its own:
/// no one can choose tokens whose counters collide with a popular one's.
///
/// Its words come from `calloc`, which leaves a large block's pages unmapped until they are
/// written: a sketch sized for a full cache takes memory only as keys arrive, and a cache made
/// for one call costs no more than what it holds. A class, for that memory's one owner.
final class FrequencySketch {
    /// Eight counters a word, eight words a block.
    private let counters: UnsafeMutableBufferPointer<UInt64>
    private let blocks: UInt64
    /// The doorkeeper's bits, 64 a word.
    private let doorkeeper: UnsafeMutableBufferPointer<UInt64>
    /// Sightings between two halvings.
    let sampleSize: Int
    private var sightings = 0
    private let seed = UInt64.random(in: .min ... .max)

    /// A sketch for about `keys` keys worth counting (eight counters each), halved every ten
    /// times as many sightings, with a doorkeeper of four bits a sighting.
    init(keys: Int) {
        sampleSize = 10 * max(1, keys)
        // A hash is mapped onto the blocks and the doorkeeper's bits by multiplication, so
        // neither need be a power of two.
        let blocks = max(1, (8 * keys + 63) / 64), words = max(1, (40 * keys + 63) / 64)
        counters = Self.zeroedWords(blocks * 8)
        self.blocks = UInt64(blocks)
        doorkeeper = Self.zeroedWords(words)
    }

    deinit {
        free(counters.baseAddress)
        free(doorkeeper.baseAddress)
    }

    /// `count` words of zero from `calloc`.
    private static func zeroedWords(_ count: Int) -> UnsafeMutableBufferPointer<UInt64> {
        guard let memory = calloc(count, MemoryLayout<UInt64>.stride) else { fatalError("no memory for a frequency sketch of \(count) words") }
        return UnsafeMutableBufferPointer(start: memory.bindMemory(to: UInt64.self, capacity: count), count: count)
    }

    /// The sketch's memory in bytes.
    var byteCount: Int { (counters.count + doorkeeper.count) * 8 }

    /// The recent sightings of the key whose hash is `key`: from 0 to 16.
    func frequency(of key: UInt64) -> Int {
        let hash = seeded(key)
        guard knows(hash) else { return 0 }
        return Int(leastCounter(hash)) + 1
    }

    /// Counts one sighting of the key whose hash is `key`; every `sampleSize` sightings,
    /// halves all counts.
    ///
    /// - Returns: `frequency(of:)` before this sighting and after it, read while counting: a
    ///   lookup that counts a sighting and asks both mixes the hash and reads the doorkeeper once.
    @discardableResult
    func record(_ key: UInt64) -> (before: Int, after: Int) {
        let hash = seeded(key)
        let (word, bits) = doorkeeperBits(hash)
        let before = doorkeeper[word] & bits == bits ? Int(leastCounter(hash)) + 1 : 0
        sightings += 1
        if sightings >= sampleSize { age() }
        guard doorkeeper[word] & bits == bits else {
            doorkeeper[word] |= bits
            return (before, Int(leastCounter(hash)) + 1)
        }
        var least = UInt64(15)
        for quarter in 0..<4 {
            let (word, shift) = counter(hash, quarter)
            var count = counters[word] >> shift & 0xFF
            if count < 15 {
                counters[word] += 1 << shift
                count += 1
            }
            least = min(least, count)
        }
        return (before, Int(least) + 1)
    }

    /// The least of the four counters of the seeded hash `hash`.
    private func leastCounter(_ hash: UInt64) -> UInt64 {
        var least = UInt64(15)
        for quarter in 0..<4 {
            let (word, shift) = counter(hash, quarter)
            least = min(least, counters[word] >> shift & 0xFF)
        }
        return least
    }

    /// `key` mixed with the seed (the SplitMix64 finaliser).
    private func seeded(_ key: UInt64) -> UInt64 {
        var mixed = (key ^ seed) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ mixed >> 27) &* 0x94D0_49BB_1331_11EB
        return mixed ^ mixed >> 31
    }

    private func knows(_ hash: UInt64) -> Bool {
        let (word, bits) = doorkeeperBits(hash)
        return doorkeeper[word] & bits == bits
    }

    /// Halves every counter, eight at a time, and clears the doorkeeper.
    private func age() {
        for index in counters.indices { counters[index] = counters[index] >> 1 & 0x7F7F_7F7F_7F7F_7F7F }
        for index in doorkeeper.indices { doorkeeper[index] = 0 }
        sightings = 0
    }

    /// The word and bit shift of `hash`'s counter in `quarter` (0 to 3) of its block: the block
    /// from the hash's high bits, the counter within the quarter from four low bits each.
    private func counter(_ hash: UInt64, _ quarter: Int) -> (word: Int, shift: UInt64) {
        let block = Int(truncatingIfNeeded: hash.multipliedFullWidth(by: blocks).high)
        let counter = quarter * 16 + Int(truncatingIfNeeded: hash >> UInt64(quarter * 4)) & 15
        return (block * 8 + counter >> 3, UInt64(counter & 7) * 8)
    }

    /// The doorkeeper's two bits for `hash`, both in one word (a blocked Bloom filter): a
    /// sighting reads one cache line of it, not two, and a log of unique tokens misses the cache
    /// on every sighting. The word is placed by the hash multiplied again (its own bits already
    /// place the counters), the bits by that product's low twelve bits.
    private func doorkeeperBits(_ hash: UInt64) -> (word: Int, bits: UInt64) {
        let mixed = hash &* 0x9E37_79B9_7F4A_7C15
        let word = Int(truncatingIfNeeded: mixed.multipliedFullWidth(by: UInt64(doorkeeper.count)).high)
        return (word, UInt64(1) << (mixed & 63) | UInt64(1) << (mixed >> 6 & 63))
    }
}
