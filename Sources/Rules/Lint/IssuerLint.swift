internal import Foundation
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

extension RuleCompiler {
    /// Lint of an `issuer` value: an issuer written as a literal should be an https URL (OIDC
    /// Discovery §3 requires it), and keys fetched from another host than the issuer's deserve
    /// a note saying why.
    mutating func lintIssuer(_ values: [PolicyValue], at node: YAMLNode, checksKeyHost: Bool) {
        let literals = values.compactMap { value -> String? in
            if case let .literal(.string(text)) = value { return text }
            return nil
        }
        for (index, issuer) in literals.enumerated() where !issuer.hasPrefix("https://") {
            warning(.issuerNotHTTPS, "the issuer '\(issuer)' is not an https URL", at: node.items?[index] ?? node,
                    hint: "OIDC issuers are https URLs, compared exactly; check for a typo or a missing scheme")
        }
        guard checksKeyHost, let keysNode = setting("keys")?["jwks_uri"], let jwksURI = keysNode.scalar?.string,
              let keyHost = URL(string: jwksURI)?.host?.lowercased() else { return }
        let issuerHosts = Set(literals.compactMap { URL(string: $0)?.host?.lowercased() })
        if !issuerHosts.isEmpty, !issuerHosts.contains(keyHost) {
            warning(.keysOffIssuerHost, "keys come from \(keyHost), not the issuer's host (\(issuerHosts.sorted().joined(separator: ", ")))", at: keysNode,
                    hint: "if the issuer publishes its keys there, say so with '# lint: ignore=keys_off_issuer_host' and a note")
        }
    }
}
