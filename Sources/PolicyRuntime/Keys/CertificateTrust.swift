internal import PolicyCrypto
@_spi(RuleAuthoring) package import PolicyJOSE

/// `x5c: {trust: ca.pem}`: a key carried in a token's own `x5c` header, accepted only once its
/// certificate chain verifies to these anchors (as gematik signs its discovery document).
///
/// This is the one header-carried key the engine uses, and only under a configured anchor;
/// `jku`, `x5u` and `jwk` are never followed.
package struct CertificateTrust: Sendable {
    /// The file the anchors were read from.
    package let file: String
    /// What the leaf must say about its holder (`x5c.leaf`); nil accepts any leaf under the anchors.
    package let leaf: CertificateLeafMatcher?
    private let verifier: CertificateChainVerifier

    /// Reads the anchors: every certificate in the PEM text of `file`.
    package init(pem: String, file: String, leaf: CertificateLeafMatcher? = nil) throws(JOSEError) {
        verifier = CertificateChainVerifier(anchors: try JOSEError.mapping { () throws(CryptoError) in try CertificateChainVerifier.certificates(pem: pem) })
        self.file = file
        self.leaf = leaf
    }

    /// For traces and listings: `x5c trust Policies/keys/ca.pem`.
    package var description: String { "x5c trust \(file)" }

    /// The anchors' subjects, for `policy-run keys`.
    package var anchorSubjects: [String] { verifier.anchors.map(\.subject) }

    /// The leaf key of a token's `x5c` chain (leaf first, standard base64 DER), once the chain
    /// verifies to an anchor at `time` and the leaf may sign. The key keeps the token's `kid`.
    package func leafKey(x5c: [String], kid: String?, at time: Double, options: KeyLoadingOptions) throws(JOSEError) -> JWK {
        guard !x5c.isEmpty else { throw JOSEError(.certificateInvalid, "the x5c header is empty") }
        guard x5c.count <= CertificateChainVerifier.maxChainLength else {
            throw JOSEError(.certificateInvalid, "the x5c chain has \(x5c.count) certificates; at most \(CertificateChainVerifier.maxChainLength) are accepted")
        }
        var chain: [X509Certificate] = []
        for (index, entry) in x5c.enumerated() {
            do throws(JOSEError) {
                let der = try StandardBase64.decode(entry)
                chain.append(try JOSEError.mapping { () throws(CryptoError) in try X509Certificate(der: der) })
            } catch {
                throw JOSEError(.certificateInvalid, "x5c entry \(index) is not a base64 DER certificate: \(error.message)")
            }
        }
        try JOSEError.mapping { () throws(CryptoError) in try verifier.verify(leaf: chain[0], intermediates: Array(chain.dropFirst()), at: time) }
        if let leaf, let mismatch = leaf.mismatch(chain[0]) {
            throw JOSEError(.certificateInvalid, "the leaf certificate (\(chain[0].subject)) chains to the anchor but does not match x5c.leaf: \(mismatch)")
        }
        return try JWK(key: JOSEError.mapping { () throws(CryptoError) in try chain[0].subjectPublicKey() }, kid: kid, options: options)
    }
}
