internal import CJSONScan

/// The bytes a `JSONWriter` has written: appended with one capacity check and one copy.
///
/// `Array.append(contentsOf:)` reaches the copy through a generic path of about a hundred
/// instructions, and a verdict line is a few dozen appends, most of a few bytes. The storage is
/// copied on write, as an array's is: a writer copied and then appended to never changes the
/// other's text.
@usableFromInline struct JSONByteBuffer: @unchecked Sendable {
    // Unchecked: the storage is written only by a buffer that holds the one reference to it.
    /// Frees the storage with the last buffer that holds it.
    @usableFromInline final class Storage: @unchecked Sendable {
        @usableFromInline let base: UnsafeMutablePointer<UInt8>
        @usableFromInline let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            base = .allocate(capacity: capacity)
        }

        deinit {
            base.deallocate()
        }
    }

    @usableFromInline var storage: Storage
    /// The bytes written, from `storage.base` on.
    @usableFromInline private(set) var count = 0

    /// An empty buffer with room for `capacity` bytes.
    init(capacity: Int) {
        storage = Storage(capacity: max(16, capacity))
    }

    /// Appends `count` bytes from `source`.
    @inlinable mutating func append(_ source: UnsafeRawPointer?, count added: Int) {
        guard added > 0, let source else { return }
        makeRoom(for: added)
        UnsafeMutableRawPointer(storage.base + count).copyMemory(from: source, byteCount: added)
        count += added
    }

    /// Appends one byte.
    @inlinable mutating func append(_ byte: UInt8) {
        makeRoom(for: 1)
        storage.base[count] = byte
        count += 1
    }

    /// Appends the bytes of `text`.
    @inlinable mutating func append(_ text: StaticString) {
        append(text.utf8Start, count: text.utf8CodeUnitCount)
    }

    /// Appends `bytes`.
    @inlinable mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        append(bytes.baseAddress, count: bytes.count)
    }

    /// Appends `count` bytes from `source` into room `makeRoom` made: no check of capacity or
    /// ownership, for a writer that reserved room for a whole value once.
    @inlinable @inline(__always) mutating func appendReserved(_ source: UnsafePointer<UInt8>, count added: Int) {
        (storage.base + count).update(from: source, count: added)
        count += added
    }

    /// Appends one byte into room `makeRoom` made.
    @inlinable @inline(__always) mutating func appendReserved(_ byte: UInt8) {
        storage.base[count] = byte
        count += 1
    }

    /// Appends `utf8` as a JSON string: in quotes, with what RFC 8259 requires escaped unless
    /// the caller knows there is nothing to escape (`escaping` false: copied as it is).
    ///
    /// Room for the text as it is comes first, which most strings need and no more; a string
    /// with escapes gets more as the C writer reaches the end of what it has.
    mutating func appendQuoted(_ utf8: UnsafeBufferPointer<UInt8>, escaping: Bool) {
        makeRoom(for: utf8.count + 2)
        appendReserved(UInt8(ascii: "\""))
        if let source = utf8.baseAddress, !escaping {
            appendReserved(source, count: utf8.count)
        } else if let source = utf8.baseAddress {
            var index = 0
            while true {
                var read = 0
                // One byte kept back for the closing quote.
                count += cjsonscan_escape(storage.base + count, storage.capacity - count - 1, source + index, utf8.count - index, &read)
                index += read
                guard index < utf8.count else { break }
                makeRoom(for: utf8.count - index + 7)
            }
        }
        appendReserved(UInt8(ascii: "\""))
    }

    @inlinable mutating func makeRoom(for added: Int) {
        if count + added > storage.capacity || !isKnownUniquelyReferenced(&storage) { reallocate(toAdd: added) }
    }

    /// Moves the bytes to storage of their own with room for `added` more.
    @usableFromInline mutating func reallocate(toAdd added: Int) {
        let replacement = Storage(capacity: max(storage.capacity * 2, count + added))
        replacement.base.update(from: storage.base, count: count)
        storage = replacement
    }

    /// Forgets the bytes, keeping the storage when no other buffer holds it.
    mutating func removeAll() {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(capacity: storage.capacity) }
        count = 0
    }

    /// The bytes, copied into an array.
    var array: [UInt8] {
        Array(UnsafeBufferPointer(start: storage.base, count: count))
    }

    /// Calls `body` with the bytes.
    func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: storage.base, count: count))
    }
}
