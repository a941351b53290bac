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
}

extension PolicySubject {
    /// By default a subject carries no token.
    public var embeddedTokens: [String] { [] }
}
