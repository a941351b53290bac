public import Foundation
#if canImport(FoundationNetworking)
internal import FoundationNetworking
#endif

/// Fetches a key document (a JWKS or an OIDC discovery document) with HTTP GET, within bounds.
///
/// The bounds are what make a hostile or broken provider harmless: a deadline for the whole
/// exchange, a byte cap enforced while the body streams in (a 50 MB answer is cut off at the
/// cap, not buffered), status 200 only, a JSON content type, and no plain `http://` — not even
/// through a redirect — unless the policy opts in for loopback tests.
public struct KeyDocumentFetcher: Sendable {
    /// How long one fetch may take.
    public var timeout: Duration
    /// The largest body read; a larger one is cut off and refused.
    public var maxBytes: Int
    /// Whether plain `http://` is allowed (loopback tests only).
    public var allowHTTP: Bool

    /// A fetcher with these bounds.
    public init(timeout: Duration = .seconds(5), maxBytes: Int = 1 << 20, allowHTTP: Bool = false) {
        self.timeout = timeout
        self.maxBytes = maxBytes
        self.allowHTTP = allowHTTP
    }

    /// GETs `url` and returns its body.
    public func fetch(_ url: URL) async throws(KeyFetchError) -> [UInt8] {
        try checkScheme(url)
        // Foundation on Linux truncates timeouts to whole seconds (0.8 s times out at once), so
        // the deadline is our own; URLSession's, rounded up, is only a backstop.
        let backstop = (timeout.seconds + 1).rounded(.up)
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: backstop)
        request.setValue("application/json, application/jwk-set+json", forHTTPHeaderField: "Accept")
        let exchange = BoundedExchange(maxBytes: maxBytes, allowHTTP: allowHTTP)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = backstop
        configuration.timeoutIntervalForResource = backstop
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration, delegate: exchange, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        let deadline = Task { [timeout] in
            try await Task.sleep(for: timeout)
            exchange.timeOut(task)
        }
        defer { deadline.cancel() }
        let outcome = await withCheckedContinuation { continuation in
            exchange.start(task, continuation)
        }
        let response = try outcome.get()
        guard response.status == 200 else {
            throw KeyFetchError(.httpStatus, "\(url.absoluteString) answered HTTP \(response.status)")
        }
        guard let type = response.contentType?.lowercased(), type.contains("json") else {
            throw KeyFetchError(.contentType, "\(url.absoluteString) answered with content type '\(response.contentType ?? "none")', not JSON")
        }
        return response.body
    }

    func checkScheme(_ url: URL) throws(KeyFetchError) {
        switch url.scheme?.lowercased() {
        case "https": return
        case "http" where allowHTTP: return
        case "http": throw KeyFetchError(.insecureURL, "\(url.absoluteString) is plain http; keys must come over https (allow_http is for loopback tests)")
        default: throw KeyFetchError(.insecureURL, "\(url.absoluteString) is not an https URL")
        }
    }
}

extension Duration {
    /// The duration in seconds, for Foundation APIs and rate arithmetic.
    package var seconds: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

/// One GET's delegate: collects the body up to the cap and resumes the caller exactly once.
private final class BoundedExchange: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    struct Response {
        let status: Int
        let contentType: String?
        let body: [UInt8]
    }

    private let maxBytes: Int
    private let allowHTTP: Bool
    // Guarded by `lock`: URLSession calls the delegate on its own queue.
    private let lock = NSLock()
    private var body: [UInt8] = []
    private var failure: KeyFetchError?
    private var continuation: CheckedContinuation<Result<Response, KeyFetchError>, Never>?

    init(maxBytes: Int, allowHTTP: Bool) {
        self.maxBytes = maxBytes
        self.allowHTTP = allowHTTP
    }

    func start(_ task: URLSessionDataTask, _ continuation: CheckedContinuation<Result<Response, KeyFetchError>, Never>) {
        lock.withLock { self.continuation = continuation }
        task.resume()
    }

    /// Ends the exchange as timed out, whatever stage it reached.
    func timeOut(_ task: URLSessionTask) {
        lock.withLock {
            if failure == nil {
                failure = KeyFetchError(.timeout, "\(task.originalRequest?.url?.absoluteString ?? "the key source") did not answer in time")
            }
        }
        task.cancel()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let overflow = lock.withLock { () -> Bool in
            guard failure == nil else { return false }
            guard body.count + data.count <= maxBytes else {
                failure = KeyFetchError(.tooLarge, "\(dataTask.originalRequest?.url?.absoluteString ?? "the response") is larger than \(maxBytes) bytes; cut off")
                return true
            }
            body.append(contentsOf: data)
            return false
        }
        if overflow { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        let scheme = request.url?.scheme?.lowercased()
        if scheme == "https" || (scheme == "http" && allowHTTP) {
            completionHandler(request)
        } else {
            lock.withLock { failure = KeyFetchError(.insecureURL, "a redirect to \(request.url?.absoluteString ?? "?") leaves https") }
            completionHandler(nil)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, result) = lock.withLock { () -> (CheckedContinuation<Result<Response, KeyFetchError>, Never>?, Result<Response, KeyFetchError>) in
            defer { self.continuation = nil }
            let url = task.originalRequest?.url?.absoluteString ?? "the key source"
            if let failure { return (self.continuation, .failure(failure)) }
            if let error = error as? URLError {
                let code: KeyFetchError.Code = error.code == .timedOut ? .timeout : .transport
                return (self.continuation, .failure(KeyFetchError(code, code == .timeout ? "\(url) did not answer in time" : "\(url): \(error.localizedDescription)")))
            }
            if let error { return (self.continuation, .failure(KeyFetchError(.transport, "\(url): \(error.localizedDescription)"))) }
            guard let http = task.response as? HTTPURLResponse else {
                return (self.continuation, .failure(KeyFetchError(.transport, "\(url) gave no HTTP response")))
            }
            return (self.continuation, .success(Response(status: http.statusCode, contentType: http.value(forHTTPHeaderField: "Content-Type"), body: body)))
        }
        continuation?.resume(returning: result)
    }
}
