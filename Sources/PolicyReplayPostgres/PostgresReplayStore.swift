public import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
public import Logging
internal import NIOCore
internal import PostgresNIO
public import ServiceLifecycle
internal import Synchronization

/// One-time values recorded in a PostgreSQL table that several servers share: a value used at
/// one server is refused at every other until it expires.
///
/// Each call is one statement, an atomic insert-if-absent per value (`INSERT … ON CONFLICT …
/// RETURNING`), so two servers racing with the same value cannot both find it new; a row whose
/// value expired is taken over in the same statement. Expired rows are deleted in the
/// background. A call the database does not answer within `timeout` (down, unreachable, slow)
/// throws, and the evaluation refuses the request as undecided; once the database is back,
/// the connection pool reconnects by itself.
///
/// A `Service`: `run()` keeps the connection pool and the clean-up going until cancelled.
public final class PostgresReplayStore: ReplayStore, Service {
    /// Where the table is and how long a call may take.
    public struct Configuration: Sendable {
        /// The server's host name or address.
        public var host: String
        /// Its port.
        public var port = 5432
        /// The user the store connects as.
        public var username: String
        /// Its password, if the server asks for one.
        public var password: String?
        /// The database; nil: the user's default.
        public var database: String?
        /// The table, created when absent: a lowercase SQL identifier.
        public var table = "policy_engine_replay"
        /// How long one call may take, connecting included, before it fails (default 2 s).
        public var timeout: Duration = .seconds(2)
        /// How often expired rows are deleted (default every minute).
        public var cleanupEvery: Duration = .seconds(60)
        /// Whether the connection must be TLS (`require`), may be (`prefer`), or is not (`disable`).
        public var tls: TLSMode = .prefer

        /// How the connection uses TLS.
        public enum TLSMode: String, Sendable, CaseIterable {
            case disable, prefer, require
        }

        /// A configuration for `username` at `host`.
        public init(host: String, port: Int = 5432, username: String, password: String? = nil, database: String? = nil) {
            self.host = host
            self.port = port
            self.username = username
            self.password = password
            self.database = database
        }

        /// Why `table` cannot name the table: not a lowercase SQL identifier of at most 63 bytes.
        public static func problem(table: String) -> String? {
            let bytes = Array(table.utf8)
            guard let first = bytes.first, (0x61...0x7A).contains(first) || first == 0x5F, bytes.count <= 63,
                  bytes.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F }) else {
                return "the table must be a lowercase SQL identifier (letters, digits and _, at most 63 bytes), found '\(table.prefix(80))'"
            }
            return nil
        }
    }

    /// Where the table is, as given.
    public let configuration: Configuration
    private let client: PostgresClient
    private let logger: Logger
    /// Whether the table is known to exist.
    private let ready = Mutex(false)

    /// A store on the database `configuration` names; nothing connects until `run()` runs.
    ///
    /// - Throws: `ReplayStoreError` when the table name is not a plain identifier.
    public init(configuration: Configuration, logger: Logger = Logger(label: "policy-engine.replay")) throws(ReplayStoreError) {
        if let problem = Configuration.problem(table: configuration.table) { throw ReplayStoreError(problem) }
        self.configuration = configuration
        self.logger = logger
        let tls: PostgresClient.Configuration.TLS = switch configuration.tls {
        case .disable: .disable
        case .prefer: .prefer(.makeClientConfiguration())
        case .require: .require(.makeClientConfiguration())
        }
        var settings = PostgresClient.Configuration(host: configuration.host, port: configuration.port, username: configuration.username,
                                                    password: configuration.password, database: configuration.database, tls: tls)
        settings.options.connectTimeout = configuration.timeout
        settings.options.maximumConnections = 8
        client = PostgresClient(configuration: settings, backgroundLogger: logger)
    }

    /// Keeps the connection pool, creates the table once the database answers, and deletes
    /// expired rows every `cleanupEvery`, until cancelled.
    public func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.client.run() }
            group.addTask { await self.cleanUp() }
            await cancelWhenGracefulShutdown { while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) } }
            group.cancelAll()
        }
    }

    private func cleanUp() async {
        while !Task.isCancelled {
            do {
                try await withTimeout {
                    try await self.prepareTable()
                    try await self.client.query("DELETE FROM \(unescaped: self.configuration.table) WHERE expires < \(UnixTime.now.seconds)", logger: self.logger)
                }
            } catch {
                logger.warning("expired one-time values could not be deleted; will try again", metadata: ["error": "\(String(reflecting: error))"])
            }
            try? await Task.sleep(for: configuration.cleanupEvery)
        }
    }

    /// Records each of `values` in one statement, within `timeout`.
    public func record(_ values: [OneTimeValue], now: UnixTime) async throws(ReplayStoreError) -> [Bool] {
        // One statement may not touch a row twice: a value repeated within the call is not new.
        var firsts: [ContentDigest: Int] = [:]
        for (index, value) in values.enumerated() where firsts[value.digest] == nil { firsts[value.digest] = index }
        let unique = firsts.sorted { $0.value < $1.value }.map { values[$0.value] }
        let inserted: Set<ContentDigest>
        do {
            inserted = try await withTimeout { try await self.insert(unique, now: now) }
        } catch {
            throw ReplayStoreError("the PostgreSQL replay store at \(configuration.host):\(configuration.port) did not answer: \(Self.reason(error))")
        }
        return values.enumerated().map { index, value in firsts[value.digest] == index && inserted.contains(value.digest) }
    }

    /// Inserts `values` unless a row holds one unexpired; the digests inserted (or taken over).
    private func insert(_ values: [OneTimeValue], now: UnixTime) async throws -> Set<ContentDigest> {
        try await prepareTable()
        let digests = values.map { ByteBuffer(bytes: $0.digest.bytes) }
        let expiries = values.map(\.expires.seconds)
        let table = configuration.table
        let rows = try await client.query("""
            INSERT INTO \(unescaped: table) (digest, expires) SELECT * FROM unnest(\(digests)::bytea[], \(expiries)::float8[])
            ON CONFLICT (digest) DO UPDATE SET expires = EXCLUDED.expires WHERE \(unescaped: table).expires <= \(now.seconds)
            RETURNING digest
            """, logger: logger)
        var inserted: Set<ContentDigest> = []
        for try await digest in rows.decode(ByteBuffer.self) {
            if let known = ContentDigest(bytes: digest.readableBytesView) { inserted.insert(known) }
        }
        return inserted
    }

    /// Creates the table and its index when absent, once.
    private func prepareTable() async throws {
        guard !ready.withLock({ $0 }) else { return }
        let table = configuration.table
        do {
            try await client.query("CREATE TABLE IF NOT EXISTS \(unescaped: table) (digest bytea PRIMARY KEY, expires double precision NOT NULL)", logger: logger)
            try await client.query("CREATE INDEX IF NOT EXISTS \(unescaped: table)_expires ON \(unescaped: table) (expires)", logger: logger)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            // Another server created it in the same instant (a unique violation in the catalog).
        }
        ready.withLock { $0 = true }
    }

    private func withTimeout<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let timeout = configuration.timeout
        return try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw TimedOut(after: timeout)
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    private struct TimedOut: Error, CustomStringConvertible {
        let after: Duration
        var description: String { "no answer within \(after)" }
    }

    /// What went wrong, for a finding and a log: the server's message, never a value.
    private static func reason(_ error: any Error) -> String {
        if let timedOut = error as? TimedOut { return timedOut.description }
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            return "\(error.code)"
        }
        return "\(error)"
    }
}
