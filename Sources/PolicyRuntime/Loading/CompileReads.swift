internal import Synchronization

/// The files one compile read, by path, with what each gave: so that the policy can be compiled
/// again from exactly those bytes (`Policy.recompiled`), whatever the files hold by then.
///
/// A compile reads its file, the bases it extends, the policies it names and its key files; a
/// second compile from disk could find a key file rotated in between and judge with other keys
/// than the first. Replayed, every read answers what the first compile's did, and a read the
/// first never made (`missed`) marks the copy as not the same policy.
package final class CompileReads: Sendable {
    private let files: Mutex<[String: [UInt8]?]>
    private let replaying: Bool
    private let missedRead = Atomic<Bool>(false)

    /// A recorder for a compile that reads from disk.
    package convenience init() {
        self.init(files: [:], replaying: false)
    }

    private init(files: [String: [UInt8]?], replaying: Bool) {
        self.files = Mutex(files)
        self.replaying = replaying
    }

    /// What `path` gives: recording, what `read` returns (nil for a file that is not there),
    /// kept for replays; replaying, what the recorded compile's read gave, without reading.
    ///
    /// - Throws: What `read` throws; a failed read is not kept (the compile it belongs to fails).
    package func bytes<Failure: Error>(of path: String, _ read: () throws(Failure) -> [UInt8]?) throws(Failure) -> [UInt8]? {
        guard replaying else {
            let bytes = try read()
            files.withLock { $0[path] = .some(bytes) }
            return bytes
        }
        guard let recorded = files.withLock({ $0[path] }) else {
            missedRead.store(true, ordering: .relaxed)
            return nil
        }
        return recorded
    }

    /// Reads that answer what these recorded, for a compile of a copy.
    package func replay() -> CompileReads {
        CompileReads(files: files.withLock { $0 }, replaying: true)
    }

    /// Whether a replay was asked for a file the recorded compile did not read: then the copy
    /// compiled from it may differ from the original.
    package var missed: Bool { missedRead.load(ordering: .relaxed) }
}

extension CompileReads? {
    /// What `read` gives for `path`, through these reads when a compile keeps them (recorded,
    /// or replayed without reading), else read from disk.
    package func bytes<Failure: Error>(of path: String, _ read: () throws(Failure) -> [UInt8]?) throws(Failure) -> [UInt8]? {
        guard let reads = self else { return try read() }
        return try reads.bytes(of: path, read)
    }
}
