import Foundation
import KeyServer
import Logging
import PolicyRuntime
import PolicyJOSE
import Synchronization
import Testing

/// Log records kept in memory, to check what a cache reports to the service's log.
final class CapturedLog: Sendable {
    struct Record: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    private let records = Mutex<[Record]>([])

    var all: [Record] { records.withLock { $0 } }

    var logger: Logger {
        var logger = Logger(label: "policy-engine.keys") { _ in Handler(log: self) }
        logger.logLevel = .debug
        return logger
    }

    fileprivate func append(_ record: Record) {
        records.withLock { $0.append(record) }
    }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .debug

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            log.append(Record(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
        }
    }
}

/// Public JWK Sets of freshly generated ES256 keys, one per kid.
enum TestKeys {
    static func jwks(_ kids: [String]) throws -> String {
        let keys = try kids.map { kid in JSONValue.object(try JWK.generate(for: .es256, kid: kid).publicKey.publicJSON()) }
        return String(decoding: JSONValue.object(JSONObject(["keys": .array(keys)])).serializedBytes(), as: UTF8.self)
    }
}

/// Waits up to five seconds for `condition`, for effects of background work.
func eventually(_ condition: () async -> Bool) async -> Bool {
    for _ in 0..<100 {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return await condition()
}

extension KeyResolution {
    var keys: ResolvedKeys? {
        if case let .available(keys) = self { return keys }
        return nil
    }

    var failure: KeyFetchError? {
        if case let .unavailable(error) = self { return error }
        return nil
    }

    var kids: [String] { keys?.keys.keys.compactMap(\.kid) ?? [] }
}
