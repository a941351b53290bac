/// The result of evaluating one subject against a policy (POLICY-FORMAT.md section 8).
public struct Verdict: Sendable, Codable {
    public let policy: String
    /// True only if no rule failed and the signature verified with a key the policy allows.
    public let valid: Bool
    /// Whether the signature verified; a policy cannot turn this requirement off.
    public let verified: Bool
    /// For policies with remote keys: whether the keys were `fresh`, served `stale` during a
    /// provider outage, or `unavailable`. Nil when every key is local.
    public let keyFreshness: KeyFreshness?
    public let findings: [Finding]
    /// Rules that did not run because an optional input was absent: listed, never counted as passed.
    public let skipped: [String]
    /// Values handed to the caller when the subject is valid (section 7).
    public let outputs: [String: JSONValue]
    /// Every rule in the order it ran, when tracing was requested.
    public let trace: Trace?

    public init(policy: String, valid: Bool, verified: Bool, keyFreshness: KeyFreshness? = nil, findings: [Finding], skipped: [String],
                outputs: [String: JSONValue], trace: Trace?) {
        self.policy = policy
        self.valid = valid
        self.verified = verified
        self.keyFreshness = keyFreshness
        self.findings = findings
        self.skipped = skipped
        self.outputs = outputs
        self.trace = trace
    }

    /// The finding codes, in order, for quick checks.
    public var codes: [FindingCode] { findings.map(\.code) }

    /// The verdict as a JSON value with the section 8 member order and exact numbers.
    public var json: JSONValue {
        var object = JSONObject([
            "policy": .string(policy),
            "valid": .bool(valid),
            "verified": .bool(verified),
        ])
        if let keyFreshness { object.set("key_freshness", .string(keyFreshness.rawValue)) }
        object.set("findings", .array(findings.map(\.json)))
        object.set("skipped", .array(skipped.map { .string($0) }))
        var outputObject = JSONObject()
        for name in outputs.keys.sorted() { outputObject.set(name, outputs[name]!) }
        object.set("outputs", .object(outputObject))
        if let trace { object.set("trace", trace.json) }
        return .object(object)
    }
}

/// One failed check.
public struct Finding: Sendable, Codable, Equatable {
    /// The rule's id, e.g. `token.expires`, or the `id` a composite rule was given.
    public let rule: String
    public let code: FindingCode
    public let message: String
    /// Where the rule is written: `file:line:column`.
    public let at: String
    /// The findings of a policy this rule evaluated in turn (a request's `bearer` token).
    public let nested: [Finding]

    public init(rule: String, code: FindingCode, message: String, at: String, nested: [Finding] = []) {
        self.rule = rule
        self.code = code
        self.message = message
        self.at = at
        self.nested = nested
    }

    var json: JSONValue {
        var object = JSONObject([
            "rule": .string(rule), "code": .string(code.rawValue), "message": .string(message), "at": .string(at),
        ])
        if !nested.isEmpty { object.set("findings", .array(nested.map(\.json))) }
        return .object(object)
    }
}

/// The record of an evaluation with tracing on.
public struct Trace: Sendable, Codable {
    public struct Entry: Sendable, Codable, Equatable {
        public enum Status: String, Sendable, Codable {
            case pass
            case fail
            case skipped
            /// Not evaluated: a fail-fast stop, an `any_of` already satisfied, or a prerequisite failed.
            case notRun = "not_run"
        }

        public let rule: String
        public let status: Status
        public let at: String
        /// The values compared or the reason it did not run.
        public let detail: String?
    }

    /// The clock the evaluation used.
    public struct Clock: Sendable, Codable, Equatable {
        public let now: Double
        public let iso8601: String
        /// Where `now` came from: `wall clock`, `--now`, `caller`.
        public let source: String
    }

    public var clock: Clock
    public var entries: [Entry] = []
    public var key: VerifiedKey?

    var json: JSONValue {
        var object = JSONObject([
            "clock": .object(JSONObject([
                "now": .number(clock.now.rounded() == clock.now ? .integer(Int64(clock.now)) : .decimal(clock.now)),
                "iso8601": .string(clock.iso8601), "source": .string(clock.source),
            ])),
            "rules": .array(entries.map { entry in
                var item = JSONObject(["rule": .string(entry.rule), "status": .string(entry.status.rawValue), "at": .string(entry.at)])
                if let detail = entry.detail { item.set("detail", .string(detail)) }
                return .object(item)
            }),
        ])
        if let key {
            var keyObject = JSONObject(["source": .string(key.source), "freshness": .string(key.freshness.rawValue)])
            if let kid = key.kid { keyObject.set("kid", .string(kid)) }
            object.set("key", .object(keyObject))
        }
        return .object(object)
    }
}
