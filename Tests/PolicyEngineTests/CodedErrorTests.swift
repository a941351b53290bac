import PolicyCrypto
@testable import PolicyRuntime
@testable import PolicyJOSE
import Testing

@Suite("Coded errors")
struct CodedErrorTests {
    @Test("codes are open values: one read from a log equals the declared one, an unknown one is its own, and a domain's codes are distinct")
    func openCodes() {
        #expect(EvaluationError.Code(rawValue: "keys_not_cached") == .keysNotCached)
        #expect(KeyFetchError.Code("x_proxy_refused") != .transport && KeyFetchError.Code("x_proxy_refused").description == "x_proxy_refused")
        let codes: [KeyFetchError.Code] = [.insecureURL, .refusedAddress, .timeout, .transport, .httpStatus, .contentType, .tooLarge,
                                           .invalidDocument, .issuerMismatch, .noUsableKey]
        #expect(Set(codes).count == codes.count)
        #expect(codes.allSatisfy { FindingCode.isWellFormed($0.rawValue) })
        let switched = switch KeyFetchError(.timeout, "no answer").code {
        case .timeout: "timeout"
        default: "other"
        }
        #expect(switched == "timeout")
    }

    @Test("a token-layer error from the crypto layer keeps its message and maps its kind")
    func fromCrypto() {
        #expect(JOSEError(CryptoError(.peerKeyInvalid, "epk off curve")) == JOSEError(.invalidEphemeralKey, "epk off curve"))
        #expect(JOSEError(CryptoError(.decryptionFailed, "tag")).code == .decryptionFailed)
    }
}
