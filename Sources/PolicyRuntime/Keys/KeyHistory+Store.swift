internal import Foundation
@_spi(JSONWriting) @_spi(RuleAuthoring) import PolicyJOSE

extension KeyHistory {
    /// Stores a key set of `source` seen at `seen` in `directory`: the document under its content
    /// address (written once, atomically), and a line appended to the index.
    ///
    /// The line is appended even when the set is unchanged: it records that the set was still
    /// published then.
    /// - Returns: the snapshot, and whether its set was new to the directory.
    /// - Throws: `LoadError` when the directory or a file cannot be written.
    package static func store(_ document: [UInt8], of source: String, seen: Double, in directory: String) throws(LoadError) -> (KeySnapshot, isNew: Bool) {
        let manager = FileManager.default
        do {
            try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw LoadError(message: "cannot create \(directory): \(error.localizedDescription)")
        }
        let file = KeySnapshot.contentAddress(of: document)
        let path = PolicyPath.joined(directory, file)
        let isNew = !manager.fileExists(atPath: path)
        if isNew {
            do {
                try Data(document).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                throw LoadError(message: "cannot write \(path): \(error.localizedDescription)")
            }
        }
        let snapshot = KeySnapshot(seen: UnixTime(seconds: seen.rounded(.down)), file: file)
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("source", source)
        writer.member("seen", snapshot.seen.iso8601)
        writer.member("jwks", file)
        writer.endObject()
        writer.append(UInt8(ascii: "\n"))
        let index = PolicyPath.joined(directory, indexName)
        // One write with O_APPEND: concurrent snapshots of other sources never interleave a line.
        let descriptor = open(index, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw LoadError(message: "cannot open \(index): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let written = writer.withBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == writer.byteCount else { throw LoadError(message: "cannot append to \(index): \(String(cString: strerror(errno)))") }
        return (snapshot, isNew)
    }
}
