internal import Synchronization

/// A small pool of prepared OpenSSL contexts for one key, shared by all threads.
///
/// An OpenSSL operation context cannot be used by two threads at once, and preparing one (fetch,
/// init, padding and digest parameters) costs as much as a fast verification. Each call borrows a
/// ready context and returns it; the lock is held only to pop or push a pointer.
final class ContextPool: @unchecked Sendable {
    /// A context pointer that only one thread holds at a time, which is what makes it sendable.
    private struct Context: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private let contexts = Mutex<[Context]>([])
    private let make: @Sendable () -> OpaquePointer?
    private let free: @Sendable (OpaquePointer) -> Void
    private let capacity: Int

    init(capacity: Int = 16, make: @escaping @Sendable () -> OpaquePointer?, free: @escaping @Sendable (OpaquePointer) -> Void) {
        self.capacity = capacity
        self.make = make
        self.free = free
    }

    deinit {
        let remaining = contexts.withLock { list in
            defer { list.removeAll() }
            return list
        }
        remaining.forEach { free($0.pointer) }
    }

    /// Runs `body` with a prepared context, or returns nil when none could be made.
    func withContext<Result>(_ body: (OpaquePointer) -> Result) -> Result? {
        let borrowed = contexts.withLock { $0.popLast() }?.pointer ?? make()
        guard let context = borrowed else { return nil }
        let result = body(context)
        let kept = contexts.withLock { list in
            guard list.count < capacity else { return false }
            list.append(Context(pointer: context))
            return true
        }
        if !kept { free(context) }
        return result
    }
}
