public import Foundation
@_spi(RuleAuthoring) internal import PolicyRuntime
@_spi(RuleAuthoring) internal import PolicyJOSE
internal import Synchronization

/// Decision logs: a JSON line per decision, at a chosen level (Authentication Hub's
/// RequestLoggingType): `none`, `timing` (policy, route, result, codes, duration, key) or `data`
/// (also the policy's outputs, the rules that refused with their locations, and the claims and
/// request fields `fields` names).
///
/// Never a token, a secret or a finding's message: a message may echo what the token said, and
/// the headers that carry credentials cannot be named. A request's body is never written, so
/// fields a policy requires encrypted never appear. Valid decisions can be sampled; invalid
/// ones are always written.
public struct DecisionLog: Sendable {
    /// How much a line says.
    public enum Level: String, Sendable, CaseIterable {
        case none, timing, data
    }

    /// What a `data` line adds of the token's claims and the request judged.
    public struct Fields: Sendable, Equatable {
        /// Claim names written when the token has them (`sub`, `client_id`).
        public var claims: [String]
        /// Request fields: `method`, `path` (without the query), `url` (with it), or
        /// `headers.NAME`.
        public var request: [String]

        /// Nothing beyond outputs and findings, by default.
        public init(claims: [String] = [], request: [String] = []) {
            self.claims = claims
            self.request = request
        }

        /// Headers that carry credentials: never written, even when named.
        static let credentialHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "dpop"]

        /// Why `field` cannot be a request field, or nil when it can.
        public static func problem(requestField field: String) -> String? {
            if ["method", "path", "url"].contains(field) { return nil }
            guard field.hasPrefix("headers."), field.count > 8 else {
                return "'\(field)' is not a request field: write method, path, url or headers.NAME"
            }
            let header = field.dropFirst(8).lowercased()
            return credentialHeaders.contains(header) ? "'\(field)' carries credentials and is never logged" : nil
        }
    }

    /// A request field a `data` line writes, read once from `Fields.request`.
    enum RequestField: Equatable {
        case method, path, url
        /// A header, by its lowercased name.
        case header(String)

        /// `field` as written, or nil for one `Fields.problem(requestField:)` refuses.
        init?(_ field: String) {
            guard Fields.problem(requestField: field) == nil else { return nil }
            switch field {
            case "method": self = .method
            case "path": self = .path
            case "url": self = .url
            default: self = .header(field.dropFirst(8).lowercased())
            }
        }
    }

    /// How much a line says.
    public let level: Level
    /// The share of valid decisions written, from 0 to 1.
    public let sampleValid: Double
    /// The claims and request fields a `data` line adds.
    public let fields: Fields
    /// `fields.request` without the ones that may not be written.
    private let requestFields: [RequestField]
    private let sink: Sink

    /// Whether a line will want the request judged (built only then: it costs a call).
    var wantsRequest: Bool { level == .data && !requestFields.isEmpty }

    /// Where lines go, one writer at a time; a file can be reopened after rotation.
    final class Sink: Sendable {
        private let target: Mutex<(handle: FileHandle, path: String?)>

        init(_ handle: FileHandle, path: String?) {
            target = Mutex((handle, path))
        }

        func write(_ line: [UInt8]) {
            target.withLock { $0.handle.write(Data(line)) }
        }

        /// Opens the file at the log's path again (a rotated file is left to its new name).
        func reopen() throws(DecisionLogError) {
            try target.withLock { target throws(DecisionLogError) in
                guard let path = target.path else { return }
                let handle = try DecisionLog.open(path)
                try? target.handle.close()
                target.handle = handle
            }
        }
    }

    /// A log at `level` writing to `handle` (standard output by default).
    public init(level: Level, sampleValid: Double = 1, fields: Fields = Fields(), handle: FileHandle = .standardOutput) {
        self.level = level
        self.sampleValid = min(max(sampleValid, 0), 1)
        self.fields = fields
        requestFields = fields.request.compactMap(RequestField.init)
        sink = Sink(handle, path: nil)
    }

    /// A log at `level` appending to the file at `path`, created when missing; `reopen()` opens
    /// it again after a log rotation renamed it.
    ///
    /// - Throws: `DecisionLogError` when the file cannot be opened for writing.
    public init(level: Level, sampleValid: Double = 1, fields: Fields = Fields(), file path: String) throws(DecisionLogError) {
        self.level = level
        self.sampleValid = min(max(sampleValid, 0), 1)
        self.fields = fields
        requestFields = fields.request.compactMap(RequestField.init)
        sink = Sink(try Self.open(path), path: path)
    }

    /// Opens the log file again at its path (SIGHUP, after logrotate); nothing for standard output.
    ///
    /// - Throws: `DecisionLogError` when the file cannot be opened; the previous one stays in use.
    public func reopen() throws(DecisionLogError) {
        try sink.reopen()
    }

    static func open(_ path: String) throws(DecisionLogError) -> FileHandle {
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        guard let handle = FileHandle(forWritingAtPath: path) else { throw DecisionLogError(path: path) }
        handle.seekToEndOfFile()
        return handle
    }

    /// Writes the line of one decision, unless the level or the sampling leaves it out.
    ///
    /// - Parameter policy: The policy that judged, or nil when the call was refused before one
    ///   was chosen.
    func record(policy: String?, endpoint: String, decision: Decision, duration: Duration, at time: Date = Date()) {
        guard level != .none else { return }
        if decision.result == .valid, sampleValid < 1, Double.random(in: 0..<1) >= sampleValid { return }
        var line = JSONObject([
            "time": .string(Self.timestamp(time)), "policy": policy.map { .string($0) } ?? .null, "endpoint": .string(endpoint),
            "valid": .bool(decision.result == .valid), "result": .string(decision.result.rawValue),
            "codes": .array(decision.codes.map { .string($0) }),
            "duration_ms": .number(.decimal(Self.milliseconds(duration))),
        ])
        if let route = decision.route { line.set("route", .string(route)) }
        if let key = decision.verdict?.proof?.key {
            line.set("kid", key.kid.map { .string($0) } ?? .null)
            line.set("key_freshness", .string(key.freshness.rawValue))
        }
        if level == .data {
            if let verdict = decision.verdict {
                line.set("findings", .array(verdict.findings.map { .object(JSONObject(["rule": .string($0.rule), "code": .string($0.code.rawValue), "at": .string($0.at)])) }))
                line.set("outputs", .object(JSONObject(members: verdict.outputs.keys.sorted().map { JSONMember(name: $0, value: verdict.outputs[$0]!) })))
            }
            if !fields.claims.isEmpty, let claims = decision.claims {
                line.set("claims", .object(JSONObject(members: fields.claims.compactMap { name in claims[name].map { JSONMember(name: name, value: $0) } })))
            }
            if !requestFields.isEmpty, let request = decision.request {
                line.set("request", .object(requestFields(of: request)))
            }
        }
        sink.write(JSONValue.object(line).serializedBytes() + [0x0A])
    }

    /// The named fields of a request `{method, url, headers}`; header names match in any case.
    func requestFields(of request: JSONObject) -> JSONObject {
        var selected = JSONObject()
        var headers = JSONObject()
        let url = request["url"]?.stringValue
        for field in requestFields {
            switch field {
            case .method: if let method = request["method"] { selected.set("method", method) }
            case .url: if let url { selected.set("url", .string(url)) }
            case .path: if let url { selected.set("path", .string(URLComponents(string: url)?.percentEncodedPath ?? url)) }
            case let .header(name):
                if let value = request["headers"]?.objectValue?.members.first(where: { $0.name.lowercased() == name })?.value {
                    headers.set(name, value)
                }
            }
        }
        if !headers.members.isEmpty { selected.set("headers", .object(headers)) }
        return selected
    }

    /// A duration in milliseconds, to the microsecond.
    static func milliseconds(_ duration: Duration) -> Double {
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return (milliseconds * 1000).rounded() / 1000
    }

    static func timestamp(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        let millis = Int((seconds - seconds.rounded(.down)) * 1000)
        let base = UnixTime.iso8601(seconds.rounded(.down))
        return base.dropLast() + ".\(String(repeating: "0", count: 3 - String(millis).count))\(millis)Z"
    }
}

/// What a decision log line and the metrics are written from: a verdict, or a call answered
/// without one (no credential, a request that cannot be read, no route). Every call at `check`
/// and `authz` makes one, so a flood of calls without a token is as visible as one of forgeries.
struct Decision {
    /// How the call ended.
    enum Result: String {
        /// A verdict, valid or not.
        case valid, invalid
        /// No credential the policy can read: none, another scheme (`Basic`), a malformed
        /// `Bearer`, or two `Authorization` headers.
        case noCredential = "no_credential"
        /// A call that could not be judged as sent (a bad body, target or host, a missing input,
        /// no route, an unknown policy).
        case refused
    }

    let result: Result
    /// The verdict, for `valid` and `invalid`.
    let verdict: Verdict?
    /// The verdict's finding codes, or the code of the refusal.
    let codes: [String]
    /// The token's claims as decoded, when there was a token.
    var claims: JSONObjectView?
    /// The request judged, `{method, url, headers}`, when the log wants it.
    var request: JSONObject?
    /// Where the serve configuration's route that chose the policy is written.
    var route: String?

    /// A call judged with `verdict`.
    init(verdict: Verdict, claims: JSONObjectView? = nil, request: JSONObject? = nil) {
        result = verdict.valid ? .valid : .invalid
        self.verdict = verdict
        codes = Array(Set(verdict.findings.map(\.code.rawValue))).sorted()
        self.claims = claims
        self.request = request
    }

    /// A call answered without a verdict, for the reason `code` (`credential_missing`,
    /// `target_invalid`, ...).
    init(_ result: Result, code: String) {
        self.result = result
        verdict = nil
        codes = [code]
    }
}

/// A decision log file that cannot be opened for writing.
public struct DecisionLogError: Error, Sendable, CustomStringConvertible {
    /// The file.
    public let path: String

    /// What failed, naming the file.
    public var description: String { "cannot write the decision log '\(path)'" }
}
