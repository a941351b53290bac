@_spi(RuleAuthoring) public import PolicyRuntime
public import PolicyReplayPostgres
public import Logging

/// Where a server records one-time values (`replay_store` in serve.yaml, docs/serve.md): in
/// its own memory, or in a PostgreSQL table every instance behind one load balancer shares.
public enum ReplayStoreSetting: Sendable {
    /// At most `capacity` unexpired values in this process.
    case memory(capacity: Int)
    /// A PostgreSQL table; the password, if any, is read from the environment variable named,
    /// which is written at `location`.
    case postgres(PostgresReplayStore.Configuration, passwordVariable: String?, location: SourceLocation)

    /// The store this setting describes, the password read from `environment`; nothing
    /// connects until the store runs.
    ///
    /// - Throws: `PolicyDiagnostics` when the password variable is named and not set, at the
    ///   line that names it.
    public func store(environment: [String: String], logger: Logger) throws(PolicyDiagnostics) -> any ReplayStore {
        switch self {
        case let .memory(capacity):
            return MemoryReplayStore(capacity: capacity)
        case .postgres(var configuration, let variable, let location):
            if let variable {
                guard let password = environment[variable] else {
                    throw PolicyDiagnostics([Diagnostic(.error, .missingKey, "'password_env' names \(variable), which is not set in the environment",
                                                        at: location,
                                                        hint: "export \(variable) before starting the server")])
                }
                configuration.password = password
            }
            // The PostgreSQL client retries a connection every second or so while the database
            // is down: its own lines are for a warning and worse, the store's refusals say why.
            var quiet = logger
            quiet.logLevel = max(logger.logLevel, .warning)
            do {
                return try PostgresReplayStore(configuration: configuration, logger: quiet)
            } catch {
                throw PolicyDiagnostics([Diagnostic(.error, .invalidValue, error.message, at: location)])
            }
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
        // An unknown store is reported by the mapping above; its settings are not read as another's.
        guard ["memory", "postgres"].contains(kind.name) else { return nil }
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
        return .postgres(configuration, passwordVariable: variable, location: settings["password_env"]?.location ?? settings.location)
    }
}
