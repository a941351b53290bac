@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// Checks of a policy's `token` section as a whole: what is missing, and what should not go alone.
enum TokenSectionLints {
    static let all: [RuleRegistry.SectionLint] = [audience, emailVerification]

    /// Without `audience`, a token the same issuer minted for any other service passes.
    static let audience: RuleRegistry.SectionLint = { section, compiler in
        guard section["audience"] == nil, !compiler.tokensAreUnsigned else { return }
        compiler.warning(.audienceMissing, "the token section has no 'audience': tokens the issuer minted for any other client or API pass",
                         at: section, hint: "add audience: with this service's client ID or API identifier")
    }

    /// `email` is only an address the user typed unless `email_verified` is true (OIDC Core §5.1).
    static let emailVerification: RuleRegistry.SectionLint = { section, compiler in
        guard let claims = section["claims"], let names = claims.pairs?.map(\.name) else { return }
        if let email = claims["email"], !names.contains("email_verified") {
            compiler.warning(.emailUnverified, "'email' is checked without 'email_verified': an unverified address proves nothing", at: email,
                             hint: "add email_verified: true under claims")
        } else if let verified = claims["email_verified"], !names.contains("email") {
            compiler.warning(.emailUnverified, "'email_verified' is checked without 'email': which address was verified is not checked", at: verified,
                             hint: "check email too, or drop email_verified")
        }
    }
}
