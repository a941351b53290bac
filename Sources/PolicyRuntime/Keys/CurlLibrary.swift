package import CCurl
import Foundation
@_spi(RuleAuthoring) import PolicyJOSE

/// libcurl, loaded on the first fetch of a key document, and one bounded GET through it.
///
/// Loaded rather than linked: the library and the thirty it needs would cost every process about
/// 8 ms to load and relocate at start, and most commands never fetch (DESIGN.md: HTTP for key
/// documents). libcurl itself stays the HTTP and TLS stack: certificate and host verification,
/// proxies from the environment, HTTP/2.
package final class CurlLibrary: @unchecked Sendable {
    // Immutable once opened; libcurl's easy interface is safe to call from several threads with
    // one handle each, which `get` makes per call.
    private let library: OpaquePointer

    private init(_ library: OpaquePointer) {
        self.library = library
    }

    /// The process's libcurl, opened at first use.
    package static let shared: Result<CurlLibrary, KeyFetchError> = open("libcurl.so.4")

    /// Opens the shared library `name`, or says why it cannot be used.
    package static func open(_ name: String) -> Result<CurlLibrary, KeyFetchError> {
        var error = [CChar](repeating: 0, count: 512)
        guard let library = ccurl_open(name, &error, error.count) else {
            let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(KeyFetchError(.transport, "remote key sources need libcurl (\(name)), which could not be loaded: \(reason); install it with apt-get install libcurl4"))
        }
        return .success(CurlLibrary(library))
    }

    /// What one GET returned.
    package enum Answer: Sendable {
        case answered(status: Int, contentType: String?, redirect: String?, body: [UInt8])
        case timeout
        case tooLarge
        case transport(String)
        case unsupportedScheme(String)
        /// The address filter refused the address the host resolved to (each of them, if several).
        case refusedAddress(String)
    }

    /// GETs `url` on a thread of its own (the call blocks for up to `timeout`), without following
    /// redirects, reading at most `maxBytes` of body. Every address libcurl is about to connect
    /// to is first judged by `access` (`KeyURLAccess.admits`), as over plain http when `url` is.
    func get(_ url: String, accept: String, timeout: Duration, maxBytes: Int, access: KeyURLAccess) async -> Answer {
        let plainHTTP = url.lowercased().hasPrefix("http:")
        let rules = (access.allowHTTP ? Self.allowHTTPRule : 0) | (access.allowInternal ? Self.allowInternalRule : 0) | (plainHTTP ? Self.plainHTTPRule : 0)
        return await get(url, accept: accept, timeout: timeout, maxBytes: maxBytes, allowHTTP: access.allowHTTP, filter: Self.addressFilter, rules: Int32(rules))
    }

    /// The GET with the address filter given as libcurl's socket opener will call it, `rules`
    /// passed through: the seam the tests drive the socket check through.
    package func get(_ url: String, accept: String, timeout: Duration, maxBytes: Int, allowHTTP: Bool, filter: CCurlAddressFilter,
                     rules: Int32) async -> Answer {
        let milliseconds = max(1, Int(timeout.seconds * 1000))
        return await withCheckedContinuation { continuation in
            let thread = Thread { [self] in
                var response = CCurlResponse()
                ccurl_get(self.library, url, accept, milliseconds, maxBytes, allowHTTP ? 1 : 0, filter, rules, &response)
                defer { ccurl_response_free(&response) }
                continuation.resume(returning: Self.answer(response))
            }
            thread.start()
        }
    }

    // The bits of `rules` that carry a `KeyURLAccess` and the connection's scheme through C.
    private static let allowHTTPRule = 1, allowInternalRule = 2, plainHTTPRule = 4

    /// `KeyURLAccess.admits` for libcurl's socket opener, with the access rebuilt from `rules`.
    private static let addressFilter: CCurlAddressFilter = { bytes, length, rules in
        guard let bytes, let address = IPAddress(bytes: Array(UnsafeBufferPointer(start: bytes, count: length))) else { return 0 }
        let rules = Int(rules)
        let access = KeyURLAccess(allowHTTP: rules & allowHTTPRule != 0, allowInternal: rules & allowInternalRule != 0)
        return access.admits(address, plainHTTP: rules & plainHTTPRule != 0) ? 1 : 0
    }

    private static func answer(_ response: CCurlResponse) -> Answer {
        var message = response.message
        let text = withUnsafeBytes(of: &message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        switch response.outcome {
        case CCURL_OK:
            let body = response.body.map { [UInt8](UnsafeBufferPointer(start: $0, count: response.length)) } ?? []
            return .answered(status: response.status, contentType: response.content_type.map { String(cString: $0) },
                             redirect: response.redirect_url.map { String(cString: $0) }, body: body)
        case CCURL_TIMEOUT: return .timeout
        case CCURL_TOO_LARGE: return .tooLarge
        case CCURL_PROTOCOL: return .unsupportedScheme(text)
        case CCURL_REFUSED_ADDRESS: return .refusedAddress(text)
        default: return .transport(text)
        }
    }
}
