internal import Synchronization

/// A small pool of prepared OpenSSL contexts for one key, shared by all threads.
///
/// An OpenSSL operation context cannot be used by two threads at once, and preparing one (fetch,
/// init, padding and digest parameters) costs as much as a fast verification. Each call borrows a
/// ready context and returns it. The pool is a row of atomic slots, not a locked list: borrowing
/// is one exchange and returning one compare-and-swap on the first slot in the usual case, where
/// a mutex would be taken twice per verification.
final class ContextPool: @unchecked Sendable {
    /// Each holds a ready context or nil; a context is in at most one slot or with one caller.
    private let slots: InlineArray<16, Atomic<OpaquePointer?>> = InlineArray { _ in Atomic(nil) }
    private let make: @Sendable () -> OpaquePointer?
    private let free: @Sendable (OpaquePointer) -> Void

    init(make: @escaping @Sendable () -> OpaquePointer?, free: @escaping @Sendable (OpaquePointer) -> Void) {
        self.make = make
        self.free = free
    }

    deinit {
        for index in slots.indices {
            if let context = slots[index].exchange(nil, ordering: .acquiring) { free(context) }
        }
    }

    /// Runs `body` with a prepared context, or returns nil when none could be made.
    func withContext<Result>(_ body: (OpaquePointer) -> Result) -> Result? {
        guard let context = borrow() ?? make() else { return nil }
        let result = body(context)
        if !giveBack(context) { free(context) }
        return result
    }

    private func borrow() -> OpaquePointer? {
        for index in slots.indices {
            if let context = slots[index].exchange(nil, ordering: .acquiring) { return context }
        }
        return nil
    }

    /// Puts `context` in a free slot; false when all are taken (more threads than slots ran at once).
    private func giveBack(_ context: OpaquePointer) -> Bool {
        for index in slots.indices where slots[index].compareExchange(expected: nil, desired: context, ordering: .releasing).exchanged {
            return true
        }
        return false
    }
}
