internal import COpenSSL

/// Builds a `CryptoError` from OpenSSL's thread-local error queue, and empties the queue.
///
/// Every failing OpenSSL call leaves entries on the calling thread's queue; draining it here keeps
/// a long-running verifier from accumulating them and keeps one failure's reason out of the next.
func openSSLFailure(_ code: CryptoError.Code, _ what: String) -> CryptoError {
    let reason = drainOpenSSLErrors()
    return CryptoError(code, reason.isEmpty ? what : "\(what): \(reason)")
}

/// Empties OpenSSL's error queue for this thread and returns the first reason, if any.
@discardableResult
func drainOpenSSLErrors() -> String {
    let first = ERR_get_error()
    guard first != 0 else { return "" }
    ERR_clear_error()
    var buffer = [CChar](repeating: 0, count: 256)
    ERR_error_string_n(first, &buffer, buffer.count)
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
