internal import CSodium

/// Ed25519 through libsodium, which verifies about 2.5× faster than OpenSSL 3.0 on these
/// machines (DESIGN.md). Only this folder imports CSodium.
enum Ed25519 {
    /// libsodium must be initialised once per process before use; Swift runs this lazily, once.
    private static let initialised: Bool = sodium_init() >= 0

    static let publicKeyByteCount = 32
    static let signatureByteCount = 64

    /// A verifier for a 32-byte public key; libsodium rejects non-canonical S (S ≥ L) and
    /// small-order keys and R values, which RFC 8032 strict verification wants.
    struct Verifier: SignatureVerifier {
        let publicKey: [UInt8]

        init(publicKey: [UInt8]) throws(CryptoError) {
            precondition(Ed25519.initialised, "libsodium failed to initialise")
            guard publicKey.count == Ed25519.publicKeyByteCount else {
                throw CryptoError(.keyInvalid, "an Ed25519 public key is 32 bytes, found \(publicKey.count)")
            }
            self.publicKey = publicKey
        }

        func verify(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) -> Bool {
            guard signature.count == Ed25519.signatureByteCount else { return false }
            return publicKey.withUnsafeBufferPointer { key in
                crypto_sign_verify_detached(
                    signature.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    message.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(message.count),
                    key.baseAddress!
                ) == 0
            }
        }
    }

    /// A signer from a 32-byte seed (the JWK `d`).
    struct Signer: SignatureSigner {
        private let secretKey: [UInt8]
        let publicKey: [UInt8]

        init(seed: [UInt8]) throws(CryptoError) {
            precondition(Ed25519.initialised, "libsodium failed to initialise")
            guard seed.count == Int(crypto_sign_SEEDBYTES) else {
                throw CryptoError(.keyInvalid, "an Ed25519 private key is 32 bytes, found \(seed.count)")
            }
            var publicKey = [UInt8](repeating: 0, count: Int(crypto_sign_PUBLICKEYBYTES))
            var secretKey = [UInt8](repeating: 0, count: Int(crypto_sign_SECRETKEYBYTES))
            guard crypto_sign_seed_keypair(&publicKey, &secretKey, seed) == 0 else {
                throw CryptoError(.keyInvalid, "libsodium rejected the Ed25519 seed")
            }
            self.publicKey = publicKey
            self.secretKey = secretKey
        }

        func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
            var signature = [UInt8](repeating: 0, count: Ed25519.signatureByteCount)
            guard crypto_sign_detached(&signature, nil, message, UInt64(message.count), secretKey) == 0 else {
                throw CryptoError(.cryptoFailure, "libsodium could not sign")
            }
            return signature
        }
    }
}
