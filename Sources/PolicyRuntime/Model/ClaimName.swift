@_spi(RuleAuthoring) package import PolicyJOSE

/// The names of the registered claims read on every token (by rules, batch lines and replay
/// detection), prepared once for lookups (`JSONMemberName`).
package enum ClaimName {
    package static let iss = JSONMemberName("iss")
    package static let sub = JSONMemberName("sub")
    package static let aud = JSONMemberName("aud")
    package static let exp = JSONMemberName("exp")
    package static let nbf = JSONMemberName("nbf")
    package static let iat = JSONMemberName("iat")
    package static let jti = JSONMemberName("jti")
    package static let azp = JSONMemberName("azp")
    package static let nonce = JSONMemberName("nonce")
}
