package import PolicyCrypto

extension JOSEError {
    /// The token layer's error for a failure of the crypto layer: the same kind (an invalid peer
    /// key of ECDH-ES is an invalid `epk`), the same message.
    init(_ error: CryptoError) {
        let code: Code
        switch error.code {
        case .keyInvalid: code = .keyInvalid
        case .keyUnsupported: code = .keyUnsupported
        case .keyMismatch: code = .keyMismatch
        case .peerKeyInvalid: code = .invalidEphemeralKey
        case .certificateInvalid: code = .certificateInvalid
        case .decryptionFailed: code = .decryptionFailed
        case .unsupportedParameter: code = .unsupportedAlgorithm
        case .cryptoFailure: code = .cryptoFailure
        }
        self.init(code, error.message)
    }

    /// Runs an operation of the crypto layer, reporting its failure as a `JOSEError`.
    package static func mapping<Result>(_ operation: () throws(CryptoError) -> Result) throws(JOSEError) -> Result {
        do {
            return try operation()
        } catch {
            throw JOSEError(error)
        }
    }
}
