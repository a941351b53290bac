import FlyingFox
import FlyingSocks
import Foundation

/// A real HTTP server on 127.0.0.1 for key-source tests: routes answer with what a test sets,
/// and every request is counted per path, so tests can assert how often the engine fetched.
final class KeyServer: Sendable {
    typealias Handler = @Sendable (HTTPRequest) async throws -> HTTPResponse

    private let server: HTTPServer
    private let task: Task<Void, any Error>
    let counter = RequestCounter()
    let port: UInt16

    init() async throws {
        server = HTTPServer(address: try sockaddr_in.inet(ip4: "127.0.0.1", port: 0), timeout: 30, logger: .disabled)
        let server = self.server
        task = Task { try await server.run() }
        try await server.waitUntilListening()
        let address = await server.listeningAddress
        guard case let .ip4(_, port: port)? = address else { throw CocoaError(.featureUnsupported) }
        self.port = port
    }

    /// `http://127.0.0.1:PORT/path`.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Answers GET `path` with `handler`, counting each request.
    func route(_ path: String, _ handler: @escaping Handler) async {
        let counter = counter
        await server.appendRoute(HTTPRoute("GET \(path)")) { request in
            await counter.increment(path)
            return try await handler(request)
        }
    }

    /// Answers GET `path` with a JSON body.
    func json(_ path: String, _ body: String, status: HTTPStatusCode = .ok, contentType: String = "application/json") async {
        await route(path) { _ in
            HTTPResponse(statusCode: status, headers: [.contentType: contentType], body: Data(body.utf8))
        }
    }

    func requests(_ path: String) async -> Int {
        await counter.count(path)
    }

    func stop() async {
        await server.stop()
        task.cancel()
    }
}

actor RequestCounter {
    private var counts: [String: Int] = [:]

    func increment(_ path: String) { counts[path, default: 0] += 1 }
    func count(_ path: String) -> Int { counts[path] ?? 0 }
}
