import Foundation
import KeyServer
import PolicyRuntime
import PolicyJOSE
import Testing

/// A token log replayed across a key rotation: `keys snapshot` against a provider on 127.0.0.1
/// that rotates, then `batch` with the history and without it.
@Suite("policy-run keys snapshot and history")
struct KeyHistoryCommandTests {
    static let keys = DecodeCommandTests.packageRoot.appendingPathComponent("Policies/keys")

    /// The public JWKS of the test keys named by kid.
    static func jwks(_ kids: [String]) throws -> String {
        let keys = try kids.map { kid -> String in
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.keys.appendingPathComponent("\(kid).jwks.json"))) as! [String: Any]
            return String(decoding: try JSONSerialization.data(withJSONObject: (object["keys"] as! [[String: Any]])[0], options: .sortedKeys), as: UTF8.self)
        }
        return #"{"keys":[\#(keys.joined(separator: ","))]}"#
    }

    /// The bundled sample ID token's claims, signed with the ES256 test key as kid test-es256.
    static func es256Token() throws -> String {
        let pem = try String(contentsOf: Self.keys.appendingPathComponent("test-es256.key.pem"), encoding: .utf8)
        let claims = #"{"iss":"https://dev-123.okta.com/oauth2/default","sub":"00u1a2b3c4d5e6f7g8","aud":"0oa1b2c3d4","iat":1795251600,"exp":1795255200}"#
        return try CompactJWS.sign(payload: Array(claims.utf8), header: JSONObject(["kid": .string("test-es256")]), algorithm: .es256, key: JWK(pem: pem))
    }

    static func policy(_ url: URL, in folder: URL, history: String?, grace: String? = nil) throws -> String {
        let extra = (history.map { ", history: \($0)" } ?? "") + (grace.map { ", history_grace: \($0)" } ?? "")
        let text = """
        policy: rotating
        token:
          algorithms: [RS256, ES256]
          keys: {jwks_uri: "\(url.absoluteString)", allow_http: true, max_wait: 30s, require_kid: true\(extra)}
          issuer: https://dev-123.okta.com/oauth2/default
          audience: 0oa1b2c3d4
        """
        let file = folder.appendingPathComponent("rotating-\(UUID().uuidString).yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    @Test("a log spanning a rotation: valid with the history (naming each record's snapshot), kid_unknown without it; published-later and before-history refused")
    func replayAcrossRotation() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("key-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await KeyServer()
        let published = await server.document("/jwks", try Self.jwks(["test-rs256"]))
        let withHistory = try Self.policy(server.url("/jwks"), in: folder, history: "history")
        let withGrace = try Self.policy(server.url("/jwks"), in: folder, history: "history", grace: "20m")
        let live = try Self.policy(server.url("/jwks"), in: folder, history: nil)

        // Before any snapshot the policy compiles with a warning (lint shows it; keys counts it), and keys says there is none.
        let none = try await KeysCommandTests.run(["keys", "--policy", withHistory])
        #expect(none.status == 1 && none.stderr.contains("holds no snapshot yet") && none.stderr.contains("lint warning"), "\(none.stderr)")
        let lint = try await KeysCommandTests.run(["lint", withHistory])
        #expect(lint.stdout.contains("warning[key_source]") && lint.stdout.contains("holds no snapshot of"), "\(lint.stdout)")

        // The provider publishes rs256, then both, then only es256: a snapshot at each stage.
        let first = try await KeysCommandTests.run(["keys", "snapshot", "--policy", withHistory, "--seen", "2026-11-01T00:00:00Z"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("1 key (test-rs256) -> \(folder.path)/history/sha256-") && first.stdout.contains("seen 2026-11-01T00:00:00Z"))
        published.set(try Self.jwks(["test-rs256", "test-es256"]))
        let second = try await KeysCommandTests.run(["keys", "snapshot", "--policy", withHistory, "--seen", "2026-11-21T09:20:00Z"])
        #expect(second.status == 0 && second.stdout.contains("2 keys (test-rs256, test-es256)"))
        published.set(try Self.jwks(["test-es256"]))
        let third = try await KeysCommandTests.run(["keys", "snapshot", "--policy", withHistory, "--seen", "2026-11-21T09:40:00Z"])
        #expect(third.status == 0 && third.stdout.contains("1 key (test-es256)"))
        let again = try await KeysCommandTests.run(["keys", "snapshot", "--policy", withHistory, "--seen", "2026-11-21T09:45:00Z"])
        #expect(again.stdout.hasSuffix("(set unchanged)\n"))
        #expect(await server.requests("/jwks") == 4)

        let rs256 = BatchCommandTests.token
        let es256 = try Self.es256Token()
        let records = [
            (rs256, "2026-11-21T09:30:00Z"), (rs256, "2026-11-21T09:10:00Z"), (es256, "2026-11-21T09:10:00Z"),
            (rs256, "2026-11-21T09:50:00Z"), (es256, "2026-11-21T09:50:00Z"), (rs256, "2026-10-01T00:00:00Z"),
        ]
        let log = folder.appendingPathComponent("log.jsonl")
        try records.map { #"{"token": "\#($0.0)", "ts": "\#($0.1)"}"# }.joined(separator: "\n").appending("\n").write(to: log, atomically: true, encoding: .utf8)

        func verdicts(_ policy: String) async throws -> [[String: Any]] {
            let run = try await KeysCommandTests.run(["batch", "--policy", policy, log.path])
            return run.stdout.split(separator: "\n").map { try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        }
        func codes(_ verdict: [String: Any]) -> [String] { (verdict["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String } }
        func snapshotSeen(_ verdict: [String: Any]) -> String? { (verdict["key_snapshot"] as? [String: Any])?["seen"] as? String }

        let judged = try await verdicts(withHistory)
        #expect(judged.map { $0["valid"] as? Bool } == [true, true, false, false, true, false])
        // The newest snapshot at each record's time stands, an unchanged set's included (09:45).
        #expect(judged.map(snapshotSeen) == ["2026-11-21T09:20:00Z", "2026-11-01T00:00:00Z", nil, nil, "2026-11-21T09:45:00Z", nil])
        #expect(codes(judged[2]) == ["key_published_later"])
        #expect(codes(judged[3]) == ["kid_unknown"])
        #expect(((judged[3]["findings"] as? [[String: Any]])?.first?["message"] as? String)?.contains("was gone from") == true)
        #expect(codes(judged[5]).contains("keys_before_history"))
        #expect(((judged[0]["key_snapshot"] as? [String: Any])?["file"] as? String)?.hasPrefix("sha256-") == true)

        // A grace of 20 minutes keeps rs256 until 10:00: the record at 09:50 verifies.
        let graceful = try await verdicts(withGrace)
        #expect(graceful.map { $0["valid"] as? Bool } == [true, true, false, true, true, false])

        // Without the history, today's set (es256 only) judges every record: the rs256 ones are
        // kid_unknown, and the es256 one from before its key existed passes.
        let today = try await verdicts(live)
        #expect(today.map { $0["valid"] as? Bool } == [false, false, true, false, true, false])
        #expect(codes(today[0]) == ["kid_unknown"] && today[0]["key_snapshot"] == nil)
        #expect(await server.requests("/jwks") == 5)
        await server.stop()
    }

    @Test("snapshot refusals: no remote source, a source without a directory, a provider that is down")
    func refusals() async throws {
        let local = try await KeysCommandTests.run(["keys", "snapshot", "--policy", "Policies/okta-id-token.yaml", "--out", "/tmp"])
        #expect(local.status == 2 && local.stderr.contains("has no remote key source (jwks_uri, discovery) to snapshot"))

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("key-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await KeyServer()
        await server.json("/jwks", try Self.jwks(["test-rs256"]))
        let live = try Self.policy(server.url("/jwks"), in: folder, history: nil)
        let undirected = try await KeysCommandTests.run(["keys", "snapshot", "--policy", live])
        #expect(undirected.status == 2 && undirected.stderr.contains("names no history directory: give --out DIR"))
        let badTime = try await KeysCommandTests.run(["keys", "snapshot", "--policy", live, "--out", folder.path, "--seen", "later"])
        #expect(badTime.status == 2 && badTime.stderr.contains("--seen expects unix seconds or an RFC 3339 time"))
        await server.stop()
        let down = try await KeysCommandTests.run(["keys", "snapshot", "--policy", live, "--out", folder.appendingPathComponent("h").path])
        #expect(down.status == 1 && down.stderr.contains(": transport:"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("h/snapshots.jsonl").path))
    }
}
