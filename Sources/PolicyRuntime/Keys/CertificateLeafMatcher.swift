package import PolicyCrypto
@_spi(RuleAuthoring) import PolicyJOSE

/// `x5c.leaf`: what the leaf certificate of a token's `x5c` chain must say about its holder, on
/// top of chaining to the trust anchor.
///
/// Any certificate the anchor issued would otherwise sign for the policy: a TI card's, a
/// service's. gematik's IDP signs its discovery document with a certificate whose admission
/// extension names the role `oid_idpd` (1.2.276.0.76.4.260) under the policy `oid_fd_sig`
/// (1.2.276.0.76.4.203); a policy pins that role here. Every comparison is by code points.
package struct CertificateLeafMatcher: Sendable, Equatable {
    /// Subject attributes by short name (`CN`, `O`, `OU`, `C`, `serialNumber`, ...): the leaf's
    /// attribute must equal one of the listed values.
    package var subject: [String: [String]] = [:]
    /// Subject alternative names by kind (`dns`, `uri`, `email`): the leaf must carry one of the
    /// listed values of each kind named.
    package var alternativeNames: [String: [String]] = [:]
    /// Extended key usage OIDs: the leaf must carry every one.
    package var extendedKeyUsages: [String] = []
    /// Certificate policy OIDs: the leaf must carry every one.
    package var policies: [String] = []
    /// Admission profession OIDs (roles): the leaf must carry at least one.
    package var admissionRoles: [String] = []

    /// A matcher that requires nothing yet; set the properties to pin the leaf.
    package init() {}

    /// Extended key usages by name, as RFC 5280 §4.2.1.12 lists them.
    package static let keyUsageNames: [String: String] = [
        "serverAuth": "1.3.6.1.5.5.7.3.1", "clientAuth": "1.3.6.1.5.5.7.3.2", "codeSigning": "1.3.6.1.5.5.7.3.3",
        "emailProtection": "1.3.6.1.5.5.7.3.4", "timeStamping": "1.3.6.1.5.5.7.3.8", "OCSPSigning": "1.3.6.1.5.5.7.3.9",
    ]

    /// What `leaf` lacks, or nil when it matches.
    package func mismatch(_ leaf: X509Certificate) -> String? {
        let attributes = leaf.subjectAttributes
        for (name, accepted) in subject.sorted(by: { $0.key < $1.key }) {
            let found = attributes.filter { $0.name.isExactly(name) }.map(\.value)
            guard found.contains(where: accepted.containsExactly) else {
                return found.isEmpty ? "its subject has no \(name)" : "its subject \(name) is \(found.map { "'\($0)'" }.joined(separator: ", ")), not one of \(accepted)"
            }
        }
        let names = leaf.alternativeNames
        for (kind, accepted) in alternativeNames.sorted(by: { $0.key < $1.key }) {
            let found = names.filter { $0.kind.rawValue == kind }.map(\.value)
            guard found.contains(where: accepted.containsExactly) else {
                return "its subject alternative names hold no \(kind) of \(accepted)"
            }
        }
        let usages = leaf.extendedKeyUsages
        if let missing = extendedKeyUsages.first(where: { !usages.containsExactly($0) }) {
            return "it lacks the extended key usage \(missing)"
        }
        let held = leaf.policies
        if let missing = policies.first(where: { !held.containsExactly($0) }) {
            return "it lacks the certificate policy \(missing)"
        }
        if !admissionRoles.isEmpty {
            let roles = leaf.admissionRoles
            guard roles.contains(where: admissionRoles.containsExactly) else {
                return roles.isEmpty ? "it names no admission role; one of \(admissionRoles) is required"
                    : "its admission roles \(roles) include none of \(admissionRoles)"
            }
        }
        return nil
    }

    /// Whether `text` is a dotted object identifier (`1.2.276.0.76.4.260`).
    package static func isObjectIdentifier(_ text: String) -> Bool {
        let arcs = text.split(separator: ".", omittingEmptySubsequences: false)
        return arcs.count >= 2 && arcs.allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }
    }
}
