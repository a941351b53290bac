/// What one rule concluded about one subject.
public struct RuleOutcome: Sendable {
    public enum Status: String, Sendable, Codable {
        case pass
        case fail
        /// The rule could not run because something it depends on failed first.
        case blocked
    }

    public let status: Status
    public let code: FindingCode?
    public let message: String?
    /// The values compared, for the trace; secrets are never put here.
    public let detail: String?
    /// For the signature rule: the key that verified.
    public let verifiedKey: VerifiedKey?
    /// Values a passing rule hands to the verdict's `outputs` (a callback's `code` and `state`).
    public var outputs: [String: JSONValue] = [:]
    /// For a failing rule that evaluated another policy: that policy's findings.
    public var nested: [Finding] = []

    public static func pass(_ detail: String? = nil, outputs: [String: JSONValue] = [:]) -> RuleOutcome {
        RuleOutcome(status: .pass, code: nil, message: nil, detail: detail, verifiedKey: nil, outputs: outputs)
    }

    public static func fail(_ code: FindingCode, _ message: String, detail: String? = nil, nested: [Finding] = []) -> RuleOutcome {
        RuleOutcome(status: .fail, code: code, message: message, detail: detail, verifiedKey: nil, nested: nested)
    }

    public static func blocked(_ reason: String) -> RuleOutcome {
        RuleOutcome(status: .blocked, code: nil, message: nil, detail: reason, verifiedKey: nil)
    }

    public static func verified(by key: VerifiedKey, detail: String? = nil) -> RuleOutcome {
        RuleOutcome(status: .pass, code: nil, message: nil, detail: detail, verifiedKey: key)
    }
}

/// The key a signature verified with, as the trace shows it.
public struct VerifiedKey: Sendable, Codable, Equatable {
    public let kid: String?
    public let source: String
    /// `stale` when a remote key set was served past its TTL because the source failed.
    public let freshness: KeyFreshness

    public init(kid: String?, source: String, freshness: KeyFreshness = .fresh) {
        self.kid = kid
        self.source = source
        self.freshness = freshness
    }
}
