internal import COpenSSL
internal import Foundation

/// Verifies an X.509 chain to explicitly configured trust anchors, as of a given time.
///
/// The anchors are the only trust: the system store is never consulted, and an anchor need not
/// be self-signed (an intermediate CA may be configured). Validity is checked at the caller's
/// time, not the wall clock, so a batch judges each record as of its own moment.
public struct CertificateChainVerifier: Sendable {
    /// The longest chain accepted, leaf included.
    public static let maxChainLength = 10

    /// The trust anchors.
    public let anchors: [X509Certificate]

    /// A verifier trusting exactly `anchors`.
    public init(anchors: [X509Certificate]) {
        self.anchors = anchors
    }

    /// Reads every `CERTIFICATE` block of a PEM text.
    public static func certificates(pem: String) throws(CryptoError) -> [X509Certificate] {
        let bytes = Array(pem.utf8)
        return try bytes.withUnsafeBufferPointer { buffer throws(CryptoError) -> [X509Certificate] in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else {
                throw openSSLFailure(.cryptoFailure, "out of memory")
            }
            defer { BIO_free(bio) }
            var certificates: [X509Certificate] = []
            while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
                certificates.append(X509Certificate(takingOwnership: certificate))
            }
            // The loop ends on "no start line"; anything else is a damaged block.
            drainOpenSSLErrors()
            let blocks = pem.components(separatedBy: "-----BEGIN CERTIFICATE-----").count - 1
            guard blocks > 0 else { throw CryptoError(.certificateInvalid, "no CERTIFICATE block found") }
            guard certificates.count == blocks else {
                throw CryptoError(.certificateInvalid, "certificate \(certificates.count + 1) of \(blocks) is not a valid X.509 certificate")
            }
            return certificates
        }
    }

    /// Checks that `leaf`, helped by `intermediates`, chains to an anchor with every certificate
    /// valid at `time` (seconds since the epoch), and that the leaf may sign.
    public func verify(leaf: X509Certificate, intermediates: [X509Certificate], at time: Double) throws(CryptoError) {
        guard intermediates.count < Self.maxChainLength else {
            throw CryptoError(.certificateInvalid, "the chain has \(intermediates.count + 1) certificates; at most \(Self.maxChainLength) are accepted")
        }
        guard let store = X509_STORE_new() else { throw openSSLFailure(.cryptoFailure, "out of memory") }
        defer { X509_STORE_free(store) }
        for anchor in anchors where X509_STORE_add_cert(store, anchor.pointer) != 1 {
            throw openSSLFailure(.cryptoFailure, "could not add the trust anchor \(anchor.subject)")
        }
        guard let untrusted = COpenSSL_sk_X509_new_null() else { throw openSSLFailure(.cryptoFailure, "out of memory") }
        defer { COpenSSL_sk_X509_free(untrusted) }
        for certificate in intermediates where COpenSSL_sk_X509_push(untrusted, certificate.pointer) == 0 {
            throw openSSLFailure(.cryptoFailure, "out of memory")
        }
        guard let context = X509_STORE_CTX_new() else { throw openSSLFailure(.cryptoFailure, "out of memory") }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf.pointer, untrusted) == 1 else {
            throw openSSLFailure(.cryptoFailure, "could not set up chain verification")
        }
        let parameters = X509_STORE_CTX_get0_param(context)
        X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN | X509_V_FLAG_X509_STRICT))
        X509_VERIFY_PARAM_set_time(parameters, time_t(time.rounded(.down)))
        guard X509_verify_cert(context) == 1 else {
            let code = X509_STORE_CTX_get_error(context)
            let depth = X509_STORE_CTX_get_error_depth(context)
            let reason = String(cString: X509_verify_cert_error_string(Int(code)))
            drainOpenSSLErrors()
            let which = depth == 0 ? "the leaf certificate (\(leaf.subject))" : "certificate \(depth) of the chain"
            throw CryptoError(.certificateInvalid, "\(which) does not verify to the trust anchor: \(reason)")
        }
        guard leaf.allowsDigitalSignature else {
            throw CryptoError(.certificateInvalid, "the leaf certificate (\(leaf.subject)) has a key usage without digitalSignature; it may not sign tokens")
        }
    }
}

extension X509Certificate {
    /// Whether the key usage extension, if present, permits digital signatures (RFC 5280 §4.2.1.3).
    var allowsDigitalSignature: Bool {
        let usage = X509_get_key_usage(pointer)
        return usage == UInt32.max || usage & UInt32(KU_DIGITAL_SIGNATURE) != 0
    }
}
