public import Foundation
#if canImport(Glibc)
internal import Glibc
#endif
internal import PolicyRuntime
internal import PolicyJOSE

/// A file a command reads (a policy, a token, a request, a log), opened so that a failure says
/// why in the system's words.
///
/// A file that cannot be read is a mistake on the command line, not a problem inside the file:
/// it has no line to point at, so it is reported as `error: cannot read PATH: REASON` (exit 2),
/// never as a diagnostic located at `PATH:1:1`.
public enum InputFile {
    /// Why a path cannot be read.
    public struct Failure: CommandFailure, Sendable, CustomStringConvertible {
        /// The path as given.
        public let path: String
        /// The system's reason (`No such file or directory`, `Permission denied`, `Is a directory`).
        public let reason: String

        /// A failure to read `path`, for `reason`.
        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }

        /// `file_unreadable`, the code a compile gives a file it cannot read.
        public var code: String { "file_unreadable" }
        /// `cannot read PATH: REASON`, the path escaped for a terminal.
        public var message: String { "cannot read \(InertText.escaped(path)): \(reason)" }
        /// The message.
        public var description: String { message }
    }

    /// Opens `path` for reading.
    ///
    /// - Throws: `Failure` when it cannot be opened, or is a directory.
    public static func open(_ path: String) throws(Failure) -> FileHandle {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(path, errno) }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            close(descriptor)
            throw failure(path, EISDIR)
        }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Checks that `path` can be opened for reading, for a command that hands the path on to a
    /// reader of its own (the policy compiler).
    ///
    /// - Throws: `Failure` as `open` does.
    public static func checkReadable(_ path: String) throws(Failure) {
        let handle = try open(path)
        try? handle.close()
    }

    private static func failure(_ path: String, _ number: Int32) -> Failure {
        Failure(path: path, reason: String(cString: strerror(number)))
    }
}
