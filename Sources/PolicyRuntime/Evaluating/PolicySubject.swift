@_spi(RuleAuthoring) import PolicyJOSE

/// Something other than a token that a policy section checks — an HTTP request, an
/// authorization-response callback — decoded once before any rule runs.
///
/// Subject types live with the rules that read them; the engine only carries them, keyed by
/// their section, so a new kind of subject needs no engine change.
public protocol PolicySubject: Sendable {
    /// The section whose rules read this subject: `request`, `callback`.
    static var section: String { get }
    /// Compact tokens the subject carries that rules may verify with another policy (a
    /// request's bearer token), so remote keys for them are fetched before rules run.
    var embeddedTokens: [String] { get }
    /// The token the subject presents as the caller's credential (a request's
    /// `Authorization` token): a policy with a `token` section judges it when the caller gives
    /// no token of its own, so a request is judged from the one parse of its header.
    var presentedToken: String? { get }
}

extension PolicySubject {
    /// By default a subject carries no token.
    public var embeddedTokens: [String] { [] }
    /// By default a subject presents no token.
    public var presentedToken: String? { nil }
}
