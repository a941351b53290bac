internal import Foundation
internal import Hummingbird
internal import HTTPTypes
internal import NIOCore
package import Logging
internal import ServiceLifecycle
internal import UnixSignals
@_spi(RuleAuthoring) internal import PolicyJOSE

/// The playground's HTTP server (`policy-run play`): the page, and the calls it makes to
/// `Playground`, on loopback unless told otherwise.
package struct PlaygroundServer: Sendable {
    /// What the page edits and the engine behind its calls.
    package let playground: Playground
    /// The address to bind (loopback unless `policy-run play --listen` names another with `--allow-remote`).
    package let host: String
    /// The port; 0 picks a free one.
    package let port: Int
    /// Whether calls may name the server by any host (`--allow-remote`): on an address other
    /// than loopback its names are not known here.
    package let acceptsAnyHost: Bool
    /// The session's token, which the page's calls carry: the printed address holds it.
    package let token: String
    /// The port once bound.
    let boundPort = BoundPort()
    /// The largest call body read: a policy of the loader's largest size, escaped, and a subject.
    static let maxBodyBytes = 4 << 20

    /// A server of `playground` at `host:port`, with a new random token.
    package init(playground: Playground, host: String, port: Int, acceptsAnyHost: Bool = false) {
        self.playground = playground
        self.host = host
        self.port = port
        self.acceptsAnyHost = acceptsAnyHost
        // 256 bits from the system's generator (getrandom), as hexadecimal.
        var random = SystemRandomNumberGenerator()
        token = (0..<4).map { _ in
            let digits = String(random.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }

    /// Whether `host` is a loopback address or name: 127.0.0.0/8, ::1 or localhost.
    package static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare == "::1" || bare.lowercased() == "localhost" { return true }
        let parts = bare.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil && ($0 == "0" || !$0.hasPrefix("0")) }
    }

    /// The host names calls may carry in `Host`: the loopback names and the bound address; nil
    /// for any (`acceptsAnyHost`).
    var allowedHosts: Set<String>? {
        guard !acceptsAnyHost else { return nil }
        return ["127.0.0.1", "localhost", "[::1]", host.contains(":") ? "[\(host.lowercased())]" : host.lowercased()]
    }

    /// Serves until SIGTERM or SIGINT, or until the task is cancelled; `onRunning` gets the bound port.
    package func run(logger: Logger, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let boundPort = boundPort
        let application = Application(
            router: router(),
            server: .http1(configuration: .init(idleTimeout: .seconds(60))),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "policy-run play"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                boundPort.set(port)
                await onRunning(port)
            },
            logger: logger
        )
        let services = ServiceGroup(configuration: .init(services: [application], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await services.run()
    }

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.middlewares.add(PlaygroundRequestGuard<BasicRequestContext>(token: token, hosts: allowedHosts, port: boundPort))
        router.get("/") { _, _ in PlaygroundResponses.text(PlaygroundPage.html, contentType: "text/html; charset=utf-8") }
        router.get("/playground.js") { _, _ in PlaygroundResponses.text(PlaygroundPage.script, contentType: "text/javascript; charset=utf-8") }
        router.get("/playground.css") { _, _ in PlaygroundResponses.text(PlaygroundPage.styles, contentType: "text/css; charset=utf-8") }
        let playground = playground
        router.get("/api/policies") { _, _ in PlaygroundResponses.json(playground.policies()) }
        router.get("/api/policies/{name}") { _, context in
            do throws(Playground.Refusal) {
                return PlaygroundResponses.json(try playground.policy(context.parameters.get("name") ?? ""))
            } catch {
                return PlaygroundResponses.refused(error)
            }
        }
        router.post("/api/compile") { request, _ in
            await Self.answer(request) { body throws(Playground.Refusal) in try playground.compile(body) }
        }
        router.post("/api/evaluate") { request, _ in
            await Self.answer(request) { body throws(Playground.Refusal) in try await playground.evaluate(body) }
        }
        router.post("/api/tests") { request, _ in
            await Self.answer(request) { body throws(Playground.Refusal) in try await playground.runTests(body) }
        }
        router.post("/api/save") { request, _ in
            await Self.answer(request) { body throws(Playground.Refusal) in try playground.save(body) }
        }
        // Every other path and method, answered 404 through the guard, with its headers.
        for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete, .head, .options] {
            router.on("**", method: method) { _, _ in PlaygroundResponses.error(.notFound, code: "not_found", "no such page or call") }
        }
        return router
    }

    /// Reads the call's JSON object and answers with what `body` makes of it.
    static func answer(_ request: Request, _ body: (JSONObject) async throws(Playground.Refusal) -> JSONValue) async -> Response {
        var request = request
        let bytes: ByteBuffer
        do {
            bytes = try await request.collectBody(upTo: maxBodyBytes)
        } catch {
            return PlaygroundResponses.error(.contentTooLarge, code: "too_large", "a call is at most \(maxBodyBytes) bytes")
        }
        let object: JSONObject
        do {
            object = try JSONParser().parseObject(Array(buffer: bytes), what: "the call")
        } catch {
            return PlaygroundResponses.error(.badRequest, code: "bad_call", error.description)
        }
        do {
            return PlaygroundResponses.json(try await body(object))
        } catch {
            return PlaygroundResponses.refused(error)
        }
    }
}
