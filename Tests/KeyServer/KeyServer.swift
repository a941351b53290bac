public import FlyingFox
import FlyingSocks
public import Foundation
import Synchronization

/// A real HTTP server on 127.0.0.1 for key-source tests: routes answer with what a test sets,
/// and every request is counted per path, so tests can assert how often the engine fetched.
public final class KeyServer: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) async throws -> HTTPResponse

    private let server: HTTPServer
    private let task: Task<Void, any Error>
    private let counter = RequestCounter()
    public let port: UInt16

    public init() async throws {
        server = HTTPServer(address: try sockaddr_in.inet(ip4: "127.0.0.1", port: 0), timeout: 30, logger: .disabled)
        let server = self.server
        task = Task { try await server.run() }
        // Generous: on a loaded machine (the suite in parallel) a listener can take seconds to start.
        try await server.waitUntilListening(timeout: 60)
        let address = await server.listeningAddress
        guard case let .ip4(_, port: port)? = address else { throw CocoaError(.featureUnsupported) }
        self.port = port
    }

    /// `http://127.0.0.1:PORT/path`.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Answers GET `path` with `handler`, counting each request.
    public func route(_ path: String, _ handler: @escaping Handler) async {
        let counter = counter
        await server.appendRoute(HTTPRoute("GET \(path)")) { request in
            await counter.increment(path)
            return try await handler(request)
        }
    }

    /// Answers GET `path` with a JSON body.
    public func json(_ path: String, _ body: String, status: HTTPStatusCode = .ok, contentType: String = "application/json") async {
        await route(path) { _ in
            HTTPResponse(statusCode: status, headers: [.contentType: contentType], body: Data(body.utf8))
        }
    }

    public func requests(_ path: String) async -> Int {
        await counter.count(path)
    }

    /// Answers GET `path` with a document the test can change between requests (a key rotation,
    /// an outage answered with 500s).
    public func document(_ path: String, _ body: String, status: HTTPStatusCode = .ok) async -> Document {
        let document = Document(body: body, status: status)
        await route(path) { _ in
            let (body, status) = document.current
            return HTTPResponse(statusCode: status, headers: [.contentType: "application/json"], body: Data(body.utf8))
        }
        return document
    }

    public func stop() async {
        await server.stop()
        task.cancel()
    }

    /// A response body and status that tests replace while the server runs.
    public final class Document: Sendable {
        private let state: Mutex<(String, HTTPStatusCode)>

        init(body: String, status: HTTPStatusCode) {
            state = Mutex((body, status))
        }

        var current: (String, HTTPStatusCode) { state.withLock { $0 } }

        public func set(_ body: String, status: HTTPStatusCode = .ok) {
            state.withLock { $0 = (body, status) }
        }
    }
}

actor RequestCounter {
    private var counts: [String: Int] = [:]

    func increment(_ path: String) { counts[path, default: 0] += 1 }
    func count(_ path: String) -> Int { counts[path] ?? 0 }
}
