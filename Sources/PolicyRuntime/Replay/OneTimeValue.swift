@_spi(RuleAuthoring) package import PolicyJOSE

/// A value a request may use once while it is valid (a DPoP proof's `jti`, a one-time token's
/// `jti`): a rule that passes hands it over, and the evaluation records it in a `ReplayStore`
/// once every other rule has held. A value the store already holds makes the verdict invalid.
///
/// The store keeps a digest of the scope and the value, never the value itself: 32 bytes
/// whatever the value's length, and nothing a client sent in a table a fleet shares.
public struct OneTimeValue: Sendable, Hashable {
    /// The SHA-256 of the scope and the value.
    package let digest: ContentDigest
    /// When the value stops being acceptable anyway, and the store may forget it.
    public let expires: UnixTime
    /// The code a second use is reported with.
    public let replayCode: FindingCode
    /// What the value is, for the finding of a second use: "the DPoP proof's jti".
    public let what: String

    /// A value used once within `scope` (which keeps equal values of different kinds or
    /// issuers apart: a proof key's thumbprint, a token's issuer) until `expires`.
    public init(_ value: String, scope: String, expires: UnixTime, replayCode: FindingCode, what: String) {
        digest = ContentDigest(of: Array(scope.utf8) + [0] + Array(value.utf8))
        self.expires = expires
        self.replayCode = replayCode
        self.what = what
    }

    public static func == (lhs: OneTimeValue, rhs: OneTimeValue) -> Bool { lhs.digest == rhs.digest }
    public func hash(into hasher: inout Hasher) { hasher.combine(digest) }
}
