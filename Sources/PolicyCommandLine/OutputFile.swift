public import Foundation
#if canImport(Glibc)
internal import Glibc
#endif
internal import PolicyEngine

/// A path a command writes its output to, opened in place, as a shell's `>` opens it.
///
/// `FileManager.createFile` writes a new file beside the path and renames it over the path: run
/// as root with `--output /dev/null` it turned the device into a regular file, and it replaces a
/// symlink or a FIFO instead of writing where they lead. Opened in place, output goes through a
/// symlink to its target, into a device or a FIFO, and a regular file is emptied without a new
/// inode, so a process that holds it open sees the new text.
public enum OutputFile {
    /// Why a path cannot be written.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The path as given.
        public let path: String
        /// The system's reason (`Is a directory`, `Permission denied`, ...).
        public let reason: String

        public var description: String { "cannot write to '\(InertText.escaped(path))': \(reason)" }
    }

    /// `path` opened for writing: created (mode 0644 less the umask) when absent, emptied when it
    /// is a regular file, and written in place whatever it is.
    ///
    /// - Throws: `Failure` when it cannot be opened (a directory, no permission, a missing
    ///   folder).
    public static func open(_ path: String) throws(Failure) -> FileHandle {
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Writes `text` to `path` in place, or to standard output for `-`.
    ///
    /// - Throws: `Failure` when the path cannot be opened or written.
    public static func write(_ text: String, to path: String) throws(Failure) {
        guard path != "-" else {
            FileHandle.standardOutput.write(Data(text.utf8))
            return
        }
        let handle = try open(path)
        do {
            try handle.write(contentsOf: Data(text.utf8))
            try handle.close()
        } catch {
            throw Failure(path: path, reason: "\(error)")
        }
    }
}
