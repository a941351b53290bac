import PolicyCrypto
@testable import PolicyRuntime
@testable import PolicyJOSE
import Testing

/// One key verifying from many threads at once: each borrows its own prepared OpenSSL context
/// from the key's pool of atomic slots (more threads than slots included), and every answer is
/// right. Run under ThreadSanitizer too (docs/testing.md).
@Suite("Concurrent verification")
struct ConcurrentVerificationTests {
    @Test("24 tasks verify with one key at once; genuine signatures hold and altered ones fail", arguments: [JWSAlgorithm.es256, .rs256, .hs256])
    func sharedKey(_ algorithm: JWSAlgorithm) async throws {
        let key = try JWK.generate(for: algorithm)
        let verifier = try key.publicKey.verifier(for: algorithm)
        let message = Array("header.payload".utf8)
        let signature = try key.sign(message, algorithm: algorithm)
        var flipped = signature
        flipped[flipped.count / 2] ^= 0x01
        let altered = flipped
        let results = await withTaskGroup(of: (Bool, Bool).self) { group in
            for _ in 0..<24 {
                group.addTask {
                    var genuine = true, forged = false
                    for _ in 0..<100 {
                        genuine = genuine && verifier.verify(signature: signature, message: message)
                        forged = forged || verifier.verify(signature: altered, message: message)
                    }
                    return (genuine, forged)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 24)
        #expect(results.allSatisfy { $0.0 && !$0.1 })
    }
}
