import Foundation
import PolicyRuntime
import PolicyJOSE
import Testing

/// Key sets as stored over time (`KeyHistory`): which keys count at an instant, why a kid has
/// none, and a history directory read strictly.
@Suite("Key history")
struct KeyHistoryTests {
    static let keys = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Policies/keys")
    static let source = "jwks_uri https://idp.example/jwks"

    /// A JWKS holding the test keys named by kid.
    static func document(_ kids: [String]) throws -> [UInt8] {
        let keys = try kids.map { kid -> String in
            let set = try String(contentsOf: Self.keys.appendingPathComponent("\(kid).jwks.json"), encoding: .utf8)
            let object = try JSONSerialization.jsonObject(with: Data(set.utf8)) as! [String: Any]
            let key = (object["keys"] as! [[String: Any]])[0]
            return String(decoding: try JSONSerialization.data(withJSONObject: key, options: .sortedKeys), as: UTF8.self)
        }
        return Array(#"{"keys":[\#(keys.joined(separator: ","))]}"#.utf8)
    }

    /// A fresh directory holding the snapshots `sets` (time, kids), stored as `keys snapshot` stores them.
    static func directory(_ sets: [(Double, [String])]) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("key-history-\(UUID().uuidString)").path
        for (seen, kids) in sets {
            _ = try KeyHistory.store(try document(kids), of: source, seen: seen, in: directory)
        }
        return directory
    }

    static func load(_ directory: String, grace: Duration = .zero) throws(KeyHistory.LoadError) -> KeyHistory {
        try KeyHistory(source: source, directory: directory, grace: grace, options: .standard) { path, maxBytes throws(KeyHistory.LoadError) in
            guard let data = FileManager.default.contents(atPath: path) else { return nil }
            guard data.count <= maxBytes else { throw KeyHistory.LoadError(message: "too large") }
            return [UInt8](data)
        }
    }

    static func kids(_ selection: KeyHistory.Selection) -> [String]? {
        guard case let .keys(set, _) = selection else { return nil }
        return set.keys.compactMap(\.kid)
    }

    static func snapshotTime(_ selection: KeyHistory.Selection) -> Double? {
        guard case let .keys(_, snapshot) = selection else { return nil }
        return snapshot.seen.seconds
    }

    @Test("a key counts from the first snapshot holding it to the first without it (plus grace); before the oldest, none is known")
    func rotation() throws {
        let directory = try Self.directory([(1000, ["test-rs256"]), (2000, ["test-rs256", "test-es256"]), (3000, ["test-es256"])])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let history = try Self.load(directory)
        #expect(history.snapshots.map(\.seen) == [1000, 2000, 3000])
        guard case let .beforeHistory(message) = history.keys(at: 999) else { Issue.record("a time before the oldest snapshot had keys"); return }
        #expect(message.contains("before the oldest key snapshot"))
        #expect(Self.kids(history.keys(at: 1000)) == ["test-rs256"] && Self.snapshotTime(history.keys(at: 1500)) == 1000)
        #expect(Self.kids(history.keys(at: 2500)) == ["test-rs256", "test-es256"] && Self.snapshotTime(history.keys(at: 2500)) == 2000)
        #expect(Self.kids(history.keys(at: 3000)) == ["test-es256"] && Self.snapshotTime(history.keys(at: 9e9)) == 3000)

        let graceful = try Self.load(directory, grace: .seconds(600))
        #expect(Self.kids(graceful.keys(at: 3599)) == ["test-rs256", "test-es256"])
        #expect(Self.snapshotTime(graceful.keys(at: 3599)) == 3000)
        #expect(Self.kids(graceful.keys(at: 3600)) == ["test-es256"])

        guard case let .publishedLater(later) = history.absence(of: "test-es256", at: 1500) else { Issue.record("not published later"); return }
        #expect(later.contains("first published in the snapshot of \(UnixTime.iso8601(2000))"))
        guard case let .kidUnknown(gone) = history.absence(of: "test-rs256", at: 3500) else { Issue.record("not gone"); return }
        #expect(gone.contains("was gone from \(Self.source) by the snapshot of \(UnixTime.iso8601(3000))"))
        guard case let .kidUnknown(never) = history.absence(of: "nobody", at: 3500) else { Issue.record("not unknown"); return }
        #expect(never.contains("no key with kid 'nobody' in any snapshot"))
    }

    @Test("a key that leaves and comes back counts in both spans; an unchanged set is stored once and listed at every snapshot")
    func returningKeyAndStorage() throws {
        let directory = try Self.directory([(1000, ["test-rs256"]), (2000, ["test-es256"]), (3000, ["test-rs256"]), (4000, ["test-rs256"])])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let history = try Self.load(directory)
        #expect(Self.kids(history.keys(at: 1500)) == ["test-rs256"])
        #expect(Self.kids(history.keys(at: 2500)) == ["test-es256"])
        #expect(Self.kids(history.keys(at: 3500)) == ["test-rs256"] && Self.snapshotTime(history.keys(at: 4500)) == 4000)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(files.count == 3 && files.last == KeyHistory.indexName)
        let index = try String(contentsOfFile: directory + "/" + KeyHistory.indexName, encoding: .utf8)
        #expect(index.split(separator: "\n").count == 4)
        #expect(index.hasPrefix(#"{"source":"jwks_uri https://idp.example/jwks","seen":"1970-01-01T00:16:40Z","jwks":"sha256-"#))
    }

    @Test("a history read strictly: edited or missing sets, bad index lines, other names and private keys are errors; other sources' lines are skipped")
    func strictReading() throws {
        let directory = try Self.directory([(1000, ["test-rs256"])])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let indexPath = directory + "/" + KeyHistory.indexName
        let line = try String(contentsOfFile: indexPath, encoding: .utf8)
        let file = try #require(line.split(separator: "\"").first { $0.hasPrefix("sha256-") }.map(String.init))

        func failure(_ index: String, expecting text: String) throws {
            try index.write(toFile: indexPath, atomically: true, encoding: .utf8)
            do {
                _ = try Self.load(directory)
                Issue.record("loaded despite: \(text)")
            } catch {
                #expect(error.message.contains(text), "\(error.message)")
            }
        }
        let other = #"{"source":"jwks_uri https://other.example/jwks","seen":"2026-01-01T00:00:00Z","jwks":"sha256-\#(String(repeating: "0", count: 64)).json"}"#
        try (other + "\n" + line).write(toFile: indexPath, atomically: true, encoding: .utf8)
        #expect(try Self.load(directory).snapshots.count == 1)

        try failure(line + "not json\n", expecting: "\(KeyHistory.indexName):2:")
        try failure(line.replacingOccurrences(of: "\"seen\"", with: "\"when\""), expecting: "needs the strings 'source', 'seen' and 'jwks'")
        try failure(line.replacingOccurrences(of: "1970-01-01T00:16:40Z", with: "yesterday"), expecting: "'seen' must be an RFC 3339 time")
        try failure(line.replacingOccurrences(of: file, with: "../../etc/passwd"), expecting: "must name a file sha256-<64 hex digits>.json")
        try failure(line.replacingOccurrences(of: file, with: "sha256-" + String(repeating: "a", count: 64) + ".json"), expecting: "is listed in snapshots.jsonl but missing")
        try failure(line.replacingOccurrences(of: "}", with: ",\"source\":\"x\"}"), expecting: "duplicate")

        try line.write(toFile: indexPath, atomically: true, encoding: .utf8)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/" + file)))
        bytes[bytes.count - 2] = UInt8(ascii: " ")
        try Data(bytes).write(to: URL(fileURLWithPath: directory + "/" + file))
        try failure(line, expecting: "does not hold what its name says")

        let privateSet = Array(#"{"keys":[{"kty":"oct","k":"c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA","kid":"s"}]}"#.utf8)
        let (snapshot, _) = try KeyHistory.store(privateSet, of: Self.source, seen: 5000, in: directory)
        try failure(line.replacingOccurrences(of: file, with: snapshot.file), expecting: "holds private or secret keys")
    }

    @Test("an empty or absent directory is a history with no snapshot: every time is before it")
    func empty() throws {
        let history = try Self.load(FileManager.default.temporaryDirectory.appendingPathComponent("absent-\(UUID().uuidString)").path)
        #expect(history.snapshots.isEmpty)
        guard case let .beforeHistory(message) = history.keys(at: 1000) else { Issue.record("an empty history had keys"); return }
        #expect(message.contains("holds no snapshot of \(Self.source)"))
    }
}
