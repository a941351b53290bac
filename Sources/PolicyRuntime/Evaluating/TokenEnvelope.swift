@_spi(RuleAuthoring) package import PolicyJOSE

/// How a policy's tokens are packaged, and the bounds that apply before any rule runs.
package struct TokenEnvelope: Sendable {
    /// `token.format`: signed, encrypted, or signed then encrypted.
    package enum Format: String, Sendable, CaseIterable {
        /// A compact JWS.
        case jws
        /// A compact JWE whose plaintext is the claims; decryption is what authenticates it.
        case jwe
        /// A compact JWE whose plaintext is a compact JWS: decrypt, then verify.
        case nested
    }

    /// `token.signatures`: of a JWS in general JSON serialization (RFC 7515 §7.2.1), how many
    /// signatures the policy must hold for.
    package enum SignatureRequirement: Sendable, Equatable, CustomStringConvertible {
        /// The token is valid when the policy holds for one signature (the default).
        case any
        /// The token is valid when the policy holds for every signature it carries, however few.
        case all
        /// The token is valid when the policy holds for at least this many signatures, made with
        /// as many distinct keys (a key told apart by its `kid` and source).
        case atLeast(Int)

        /// The most signers a policy may require: as many signatures as a token may carry.
        package static let mostSigners = JSONSerializedJWS.maxSignatures

        /// Whether it counts signers (`N`), which a token of one signature never satisfies.
        package var countsSigners: Bool {
            if case .atLeast = self { true } else { false }
        }

        /// `any`, `all` or a number, as the policy writes it.
        package var description: String {
            switch self {
            case .any: "any"
            case .all: "all"
            case let .atLeast(count): "\(count)"
            }
        }
    }

    /// `jws`, `jwe` or `nested`.
    package var format: Format
    /// `any`, `all` or a number: which signatures of a JSON-serialized JWS must hold.
    package var signatures = SignatureRequirement.any
    /// Where `signatures` is written, for the finding of too few.
    package var signaturesLocation: SourceLocation?
    /// The size and depth bounds of a presented token.
    package var limits: TokenLimits
    /// The decryption settings; present exactly when `format` is `jwe` or `nested`.
    package var decryption: TokenDecryption?

    /// An envelope; `decryption` is required for `jwe` and `nested`.
    package init(format: Format = .jws, limits: TokenLimits = .standard, decryption: TokenDecryption? = nil) {
        self.format = format
        self.limits = limits
        self.decryption = decryption
    }

    /// A signed compact JWS within the standard limits.
    package static let standard = TokenEnvelope()
}

/// `token.decryption`: which JWE algorithms are accepted and which keys decrypt.
package struct TokenDecryption: Sendable {
    /// The JWE `alg` values allowed.
    package let keyAlgorithms: [JWEKeyAlgorithm]
    /// The JWE `enc` values allowed.
    package let contentEncryptions: [JWEContentEncryption]
    /// Where the private decryption keys come from (local only).
    package let keys: KeySource
    /// Where `decryption` is written, for findings about it.
    package let location: SourceLocation

    /// Decryption settings, as `token.decryption` writes them.
    package init(keyAlgorithms: [JWEKeyAlgorithm], contentEncryptions: [JWEContentEncryption], keys: KeySource, location: SourceLocation) {
        self.keyAlgorithms = keyAlgorithms
        self.contentEncryptions = contentEncryptions
        self.keys = keys
        self.location = location
    }

    /// The keys that may decrypt `jwe`: the one its `kid` names, otherwise every key of the source.
    func candidates(for jwe: CompactJWE) -> [JWK]? {
        guard let set = keys.localKeys else { return [] }
        guard let kid = jwe.header.kid, set.selectsByKid else { return set.keys }
        let named = set.keys.filter { $0.kid?.isExactly(kid) == true }
        return named.isEmpty ? nil : named
    }
}
