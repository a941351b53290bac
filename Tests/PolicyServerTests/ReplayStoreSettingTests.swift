import Foundation
import Logging
import PolicyRuntime
import PolicyReplayPostgres
import PolicyServer
import Testing

/// `replay_store` in serve.yaml: memory by default, PostgreSQL with its settings read strictly,
/// each problem at its line, and the password from the environment variable it names.
@Suite("Replay store setting")
struct ReplayStoreSettingTests {
    static func configuration(_ text: String) throws -> ServeConfiguration {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString).yaml").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return try ServeConfiguration(file: file)
    }

    static func problems(_ text: String) throws -> [String] {
        do {
            _ = try configuration(text)
            return []
        } catch let error as PolicyDiagnostics {
            return error.sorted.map { "\($0.location.line):\($0.location.column) \($0.code.rawValue)" }
        }
    }

    @Test("memory by default; postgres read with its defaults, the password from the named variable")
    func read() throws {
        guard case .memory(1_000_000) = try Self.configuration("policies: p\n").replayStore else { Issue.record("not memory"); return }
        let setting = try Self.configuration("""
        policies: p
        replay_store:
          postgres: {host: db.internal, database: policy, user: policy, password_env: PG_SECRET, timeout: 3s, tls: require}
        """).replayStore
        guard case let .postgres(postgres, variable, location) = setting else { Issue.record("not postgres"); return }
        #expect(location.line == 3)
        #expect(postgres.host == "db.internal" && postgres.port == 5432 && postgres.database == "policy" && postgres.username == "policy")
        #expect(postgres.timeout == .seconds(3) && postgres.tls == .require && postgres.table == "policy_engine_replay" && variable == "PG_SECRET")
        #expect(throws: PolicyDiagnostics.self) { try setting.store(environment: [:], logger: .init(label: "test")) }
        let store = try setting.store(environment: ["PG_SECRET": "s"], logger: .init(label: "test"))
        #expect((store as? PostgresReplayStore)?.configuration.password == "s")
    }

    @Test("each problem of replay_store is located: two stores, a missing host, a table that is no identifier, a bad tls")
    func problems() throws {
        #expect(try Self.problems("""
        policies: p
        replay_store:
          memory: {capacity: 10}
          postgres: {user: policy}
        """) == ["3:3 conflict"])
        #expect(try Self.problems("""
        policies: p
        replay_store:
          postgres: {user: policy, colour: blue}
        """) == ["3:13 missing_key", "3:28 unknown_key"])
        // An unknown store is reported once, its settings not read as another store's.
        #expect(try Self.problems("policies: p\nreplay_store: {redis: {host: x}}\n") == ["2:16 unknown_key"])
        #expect(try Self.problems("""
        policies: p
        replay_store:
          postgres: {host: h, user: policy, table: "x; DROP TABLE y", tls: maybe}
        """) == ["3:44 invalid_value", "3:68 invalid_value"])
    }
}
