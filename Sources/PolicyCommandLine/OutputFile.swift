public import Foundation
#if canImport(Glibc)
internal import Glibc
#endif
@_spi(RuleAuthoring) internal import PolicyRuntime
@_spi(RuleAuthoring) internal import PolicyJOSE

/// A path a command writes its output to, written without destroying what is there.
///
/// `FileManager.createFile` writes a new file beside the path and renames it over the path: run
/// as root with `--output /dev/null` it turned the device into a regular file, and it replaced a
/// symlink or a FIFO instead of writing where they lead. Here a symlink is followed (the link is
/// kept, its target written); a regular file, or a path with nothing yet, is written to a
/// temporary file beside it that `commit()` renames into place, so a reader never sees half the
/// output and a process holding the old file keeps it whole; anything else (a character
/// device, a FIFO, a pipe such as `/dev/stdout`) is opened and written through.
public final class OutputFile {
    /// Why a path cannot be written.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The path as given.
        public let path: String
        /// The system's reason (`Is a directory`, `Permission denied`, ...).
        public let reason: String

        /// `cannot write to 'PATH': REASON`, the path escaped for a terminal.
        public var description: String { "cannot write to '\(InertText.escaped(path))': \(reason)" }
    }

    /// Where the output goes now.
    public let handle: FileHandle
    /// The path as given.
    private let path: String
    /// The file that `commit()` renames into place, and where it goes; nil when written through.
    private var replacement: (temporary: String, target: String)?

    private init(handle: FileHandle, path: String, replacement: (temporary: String, target: String)?) {
        self.handle = handle
        self.path = path
        self.replacement = replacement
    }

    deinit {
        // Never committed (an error on the way): the temporary file goes, the old one stays.
        if let replacement { unlink(replacement.temporary) }
    }

    /// Opens `path` for writing as described above.
    ///
    /// - Throws: `Failure` when it cannot be written: a directory, no permission, a missing
    ///   folder, a loop of symlinks.
    public static func open(_ path: String) throws(Failure) -> OutputFile {
        // What is there is asked of the kernel with the path as given: it follows links that
        // name no path (`/dev/stdout` → `/proc/self/fd/1` → `pipe:[N]`), which reading the
        // links one by one cannot. Only a file to be replaced needs the path the links lead to.
        var info = stat()
        if stat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                throw Failure(path: path, reason: "Is a directory")
            case S_IFREG:
                return try replacing(try resolved(path), keeping: info, as: path)
            default:
                let descriptor = Glibc.open(path, O_WRONLY | O_CLOEXEC)
                guard descriptor >= 0 else { throw failure(path) }
                return OutputFile(handle: FileHandle(fileDescriptor: descriptor, closeOnDealloc: true), path: path, replacement: nil)
            }
        }
        guard errno == ENOENT else { throw failure(path) }
        return try replacing(try resolved(path), keeping: nil, as: path)
    }

    /// Ends the output: closes it and, for a regular file, renames it into place.
    ///
    /// - Throws: `Failure` when the last bytes cannot be written or the rename fails; the old
    ///   file is then left as it was.
    public func commit() throws(Failure) {
        do {
            try handle.close()
        } catch {
            throw Failure(path: path, reason: "\(error)")
        }
        guard let (temporary, target) = replacement else { return }
        replacement = nil
        guard rename(temporary, target) == 0 else {
            let failure = Self.failure(path)
            unlink(temporary)
            throw failure
        }
    }

    /// Writes `text` to `path` as `open` and `commit` do, or to standard output for `-`.
    ///
    /// - Throws: `Failure` when the path cannot be opened or written.
    public static func write(_ text: String, to path: String) throws(Failure) {
        guard path != "-" else {
            FileHandle.standardOutput.write(Data(text.utf8))
            return
        }
        let output = try open(path)
        do {
            try output.handle.write(contentsOf: Data(text.utf8))
        } catch {
            throw Failure(path: path, reason: "\(error)")
        }
        try output.commit()
    }

    /// Writes `text` as the file named `path`, a new one renamed over the name itself: never
    /// through a link, and only where nothing is or a regular file is (whose mode and owner it
    /// keeps). For a writer whose caller must not reach past the name (the playground's Save).
    ///
    /// - Throws: `Failure` when something else is at `path`, or it cannot be written.
    public static func replaceRegularFile(_ text: String, at path: String) throws(Failure) {
        var info = stat()
        let exists = lstat(path, &info) == 0
        guard !exists || info.st_mode & S_IFMT == S_IFREG else { throw Failure(path: path, reason: "not a regular file") }
        let output = try replacing(path, keeping: exists ? info : nil, as: path)
        do {
            try output.handle.write(contentsOf: Data(text.utf8))
        } catch {
            throw Failure(path: path, reason: "\(error)")
        }
        try output.commit()
    }

    /// A new file beside `target` (mode 0666 less the umask, or the old file's mode and owner),
    /// to be renamed over it.
    private static func replacing(_ target: String, keeping old: stat?, as path: String) throws(Failure) -> OutputFile {
        let slash = target.lastIndex(of: "/")
        let folder = slash.map { String(target[..<$0]) } ?? "."
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        for _ in 0..<8 {
            let temporary = "\(folder.isEmpty ? "/" : folder)/.\(name).\(String(UInt64.random(in: 0...UInt64.max), radix: 36)).tmp"
            let descriptor = Glibc.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if descriptor < 0, errno == EEXIST { continue }
            guard descriptor >= 0 else { throw failure(path) }
            if let old {
                fchmod(descriptor, old.st_mode & 0o7777)
                _ = fchown(descriptor, old.st_uid, old.st_gid)
            }
            return OutputFile(handle: FileHandle(fileDescriptor: descriptor, closeOnDealloc: true), path: path, replacement: (temporary, target))
        }
        throw Failure(path: path, reason: "no free temporary name beside it")
    }

    /// `path` with every symlink on its last component followed, at most 40 deep.
    private static func resolved(_ path: String) throws(Failure) -> String {
        var current = path
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, buffer.count - 1)
            guard count >= 0 else { throw failure(path) }
            let link = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let folder = current.lastIndex(of: "/").map { String(current[...$0]) } ?? ""
            current = link.hasPrefix("/") ? link : folder + link
        }
        throw Failure(path: path, reason: "too many levels of symbolic links")
    }

    private static func failure(_ path: String) -> Failure {
        Failure(path: path, reason: String(cString: strerror(errno)))
    }
}
