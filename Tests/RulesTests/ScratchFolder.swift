import Foundation

/// A folder of a test's own under the temporary directory, removed when the test ends: where a
/// test writes the logs, policies and key files it reads back.
final class ScratchFolder {
    let url: URL

    /// A new, empty folder named `prefix` and a UUID.
    init(_ prefix: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The path of `name` inside.
    func path(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    /// Writes `text` to `name` inside.
    func write(_ text: String, to name: String) throws {
        try text.write(to: path(name), atomically: true, encoding: .utf8)
    }
}
