@testable import PolicyRuntime
@testable import PolicyJOSE
import Testing

/// The clock cache's index: open addressing with backward-shift deletion, driven with chosen
/// hashes so that runs collide, wrap round the table's end and are cut in the middle.
@Suite("Slot index")
struct SlotIndexTests {
    /// A model of what the index should hold: hash by slot.
    struct Model {
        var index = SlotIndex()
        var hashes: [Int: Int] = [:]

        mutating func insert(_ slot: Int, hash: Int) {
            index.insert(slot: slot, hash: hash)
            hashes[slot] = hash
        }

        mutating func remove(_ slot: Int) {
            index.remove(slot: slot, hash: hashes.removeValue(forKey: slot)!)
        }

        /// Every slot the model holds is found under its hash, and no other is.
        func consistent() -> Bool {
            index.count == hashes.count && hashes.allSatisfy { slot, hash in
                index.slot(hash: hash) { $0 == slot } == slot
            } && index.slot(hash: 12345) { hashes[$0] == nil } == nil
        }
    }

    @Test("colliding hashes: every entry is found after removals from the middle of a run, and after moves and growth")
    func collisions() {
        var model = Model()
        // Eight slots on each of four home buckets of the 64, the last near the table's end (its
        // run wraps into the first buckets and merges with the others').
        for slot in 0..<32 { model.insert(slot, hash: [3, 4, 9, 61][slot % 4] + (slot / 4) << 40) }
        #expect(model.consistent())
        for slot in [5, 0, 31, 17, 18, 2] { model.remove(slot) }
        #expect(model.consistent())
        model.index.move(from: 30, to: 100, hash: model.hashes[30]!)
        model.hashes[100] = model.hashes.removeValue(forKey: 30)
        #expect(model.consistent())
        for slot in 200..<300 { model.insert(slot, hash: slot & 7) }
        for slot in stride(from: 200, to: 300, by: 3) { model.remove(slot) }
        #expect(model.consistent())
    }

    @Test("random hashes, inserted and removed at random, against the model")
    func random() {
        var model = Model()
        var random = SystemRandomNumberGenerator()
        var live: [Int] = []
        for slot in 0..<20_000 {
            if !live.isEmpty, Bool.random(using: &random) {
                live.swapAt(Int.random(in: live.indices, using: &random), live.count - 1)
                model.remove(live.removeLast())
            }
            model.insert(slot, hash: Int.random(in: 0..<(1 << 16), using: &random))
            live.append(slot)
        }
        #expect(model.consistent())
    }
}
