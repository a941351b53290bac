@_spi(RuleAuthoring) public import PolicyRuntime
public import PolicyReplayPostgres
public import Logging

/// Where a server records one-time values (`replay_store` in serve.yaml, docs/serve.md): in
/// its own memory, or in a PostgreSQL table every instance behind one load balancer shares.
public enum ReplayStoreSetting: Sendable {
    /// At most `capacity` unexpired values in this process.
    case memory(capacity: Int)
    /// A PostgreSQL table; the password, if any, is read from the environment variable named.
    case postgres(PostgresReplayStore.Configuration, passwordVariable: String?)

    /// The store this setting describes, the password read from `environment`.
    ///
    /// - Throws: `ReplayStoreError` when the password variable is named and not set.
    public func store(environment: [String: String], logger: Logger) throws(ReplayStoreError) -> any ReplayStore {
        switch self {
        case let .memory(capacity):
            return MemoryReplayStore(capacity: capacity)
        case .postgres(var configuration, let variable):
            if let variable {
                guard let password = environment[variable] else {
                    throw ReplayStoreError("replay_store.postgres.password_env names \(variable), which is not set")
                }
                configuration.password = password
            }
            return try PostgresReplayStore(configuration: configuration, logger: logger)
        }
    }
}

extension ConfigurationReading {
    /// Reads `replay_store: {memory: {capacity}}` or `{postgres: {host, port, database, user,
    /// password_env, table, timeout, cleanup_every, tls}}`.
    mutating func replayStore(_ node: YAMLNode) -> ReplayStoreSetting? {
        guard let pairs = mapping(node, allowed: ["memory", "postgres"], what: "'replay_store'") else {
            error(.wrongType, "'replay_store' is {memory: {...}} or {postgres: {...}}", at: node)
            return nil
        }
        guard pairs.count == 1, let kind = pairs.first else {
            error(.conflict, "'replay_store' names one store: memory or postgres", at: node)
            return nil
        }
        let settings = kind.value
        if kind.name == "memory" {
            guard mapping(settings, allowed: ["capacity"], what: "'replay_store.memory'") != nil else { return nil }
            return .memory(capacity: count(settings["capacity"], in: 1...100_000_000, what: "'capacity' is a number of values") ?? 1_000_000)
        }
        let keys = ["host", "port", "database", "user", "password_env", "table", "timeout", "cleanup_every", "tls"]
        guard mapping(settings, allowed: keys, what: "'replay_store.postgres'") != nil else { return nil }
        let errors = diagnostics.count
        let host = settings["host"].flatMap { string($0, what: "'host'") }
        let user = settings["user"].flatMap { string($0, what: "'user'") }
        if settings["host"] == nil { error(.missingKey, "'replay_store.postgres' needs 'host'", at: settings) }
        if settings["user"] == nil { error(.missingKey, "'replay_store.postgres' needs 'user'", at: settings) }
        guard let host, let user else { return nil }
        var configuration = PostgresReplayStore.Configuration(host: host, username: user)
        if let port = count(settings["port"], in: 1...65535, what: "'port' is a port number") { configuration.port = port }
        configuration.database = settings["database"].flatMap { string($0, what: "'database'") }
        if let node = settings["table"], let table = string(node, what: "'table'") {
            if let problem = PostgresReplayStore.Configuration.problem(table: table) { error(.invalidValue, problem, at: node) }
            configuration.table = table
        }
        if let seconds = duration(settings["timeout"], in: 1...60, what: "'timeout'") { configuration.timeout = .seconds(seconds) }
        if let seconds = duration(settings["cleanup_every"], in: 1...86400, what: "'cleanup_every'") { configuration.cleanupEvery = .seconds(seconds) }
        if let node = settings["tls"], let text = string(node, what: "'tls'") {
            if let mode = PostgresReplayStore.Configuration.TLSMode(rawValue: text) { configuration.tls = mode } else {
                error(.invalidValue, "'tls' is disable, prefer or require, found '\(text)'", at: node)
            }
        }
        let variable = settings["password_env"].flatMap { string($0, what: "'password_env'") }
        guard diagnostics.count == errors else { return nil }
        return .postgres(configuration, passwordVariable: variable)
    }
}
