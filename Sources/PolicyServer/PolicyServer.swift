internal import Hummingbird
internal import NIOCore
internal import HummingbirdCore
internal import HTTPTypes
public import PolicyRuntime
import PolicyJOSE
internal import PolicyHTTP
internal import Foundation
public import Logging
internal import ServiceLifecycle
internal import UnixSignals
internal import Synchronization

/// The engine as an HTTP service (`policy-run serve`): every policy of a set at
/// `POST /v1/check/{policy}` (the verdict as JSON) and at `/v1/authz/{policy}` (forward auth for
/// nginx `auth_request`, Caddy `forward_auth` and Envoy `ext_authz`), with `/healthz` and
/// `/readyz`.
public struct PolicyServer: Sendable {
    /// Where to listen and how much to accept.
    public struct Configuration: Sendable {
        /// The address to bind, `127.0.0.1` by default: a sidecar answers its neighbour only.
        public var host = "127.0.0.1"
        /// The port; 0 picks a free one (tests).
        public var port = 8181
        /// The largest call body read; a larger one is answered 413.
        public var maxBodyBytes = 1 << 20
        /// The most bytes of request headers (all fields together, and any one field); a
        /// larger head is refused. 32 KiB holds a bearer token with a certificate chain.
        public var maxHeaderBytes = 32 << 10
        /// The most header fields in one request.
        public var maxHeaderFields = 100
        /// The most connections open at once; one more is answered 503 and closed.
        public var maxConnections = 1024
        /// How long a connection may wait for its next request head, or take to send one,
        /// before it is closed.
        public var idleTimeout: Duration = .seconds(30)
        /// How long a request may take from its head to its last byte; a slower one is
        /// answered 408 and its connection closed.
        public var requestTimeout: Duration = .seconds(10)
        /// Forward-auth routes at `/v1/authz`: the original request's host and path choose the
        /// policy, its headers supply inputs; a request no route takes is denied (403).
        public var routes: [ServeConfiguration.Route] = []
        /// How long calls are still served after SIGTERM or SIGINT, with `/readyz` answering 503
        /// and every answer `Connection: close`, before the listener closes; 0 stops at once.
        public var drain: Duration = .seconds(5)
        /// The memory of the signature cache shared by every call, in bytes (remembered checks
        /// and decoded tokens, `SignatureCache`).
        public var signatureCacheBytes = SignatureCache.defaultMemoryLimit

        /// The defaults: 127.0.0.1:8181, bodies up to 1 MiB, headers up to 32 KiB in 100
        /// fields, 1,024 connections, 30 s idle, 10 s per request, a 5 s drain, a 64 MiB
        /// signature cache.
        public init() {}

        /// Listens on `address`, written HOST:PORT (`127.0.0.1:8181`, `[::1]:8181`).
        ///
        /// - Returns: false, leaving the address as it was, when `address` is not HOST:PORT
        ///   with a port from 0 to 65535.
        public mutating func listen(on address: String) -> Bool {
            guard let colon = address.lastIndex(of: ":"), colon > address.startIndex,
                  let port = Int(address[address.index(after: colon)...]), (0...65535).contains(port) else { return false }
            host = String(address[..<colon])
            self.port = port
            return true
        }
    }

    /// The policies served, replaced whole on reload.
    public let policies: ServedPolicies
    /// Where to listen and how much to accept.
    public var configuration: Configuration
    /// Where decisions are logged, and how much.
    public var decisionLog: DecisionLog
    /// Counts of decisions, findings, latency and calls in flight, served at `/metrics`.
    let metrics = ServerMetrics()
    /// Signature checks remembered across calls and policies, in `configuration.signatureCacheBytes`:
    /// a token presented again (a session's every request) is not verified again. Safe to
    /// share, since a check is keyed by the key's material, not its name.
    public let signatureCache: SignatureCache
    /// Where one-time values (DPoP proofs' `jti`) are recorded: the process's memory unless
    /// given a store the servers behind one load balancer share. A store that is a `Service`
    /// (PostgreSQL) runs with the server.
    public let replayStore: any ReplayStore
    /// Set by the first SIGTERM or SIGINT.
    let drain = ServerDrain()

    /// A server for `policies`; decisions are not logged unless `decisionLog` says so.
    public init(policies: ServedPolicies, configuration: Configuration = Configuration(), decisionLog: DecisionLog = DecisionLog(level: .none),
                replayStore: any ReplayStore = MemoryReplayStore.shared) {
        self.policies = policies
        self.replayStore = replayStore
        self.configuration = configuration
        self.decisionLog = decisionLog
        signatureCache = SignatureCache(memoryLimit: configuration.signatureCacheBytes)
    }

    /// Answers one call with `body`, then counts and logs its decision: every call at `check`
    /// and `authz` is one, judged or refused. `policy` is nil for a call refused before a policy
    /// was chosen; `request` is the request judged, for a log that writes its fields; `route` the
    /// location of the configured route.
    private func judged(_ policy: Policy?, endpoint: String, request: @autoclosure () -> JSONObject? = nil, route: String? = nil,
                        _ body: () async -> (Response, Decision)) async -> Response {
        let started = ContinuousClock.now
        var (response, decision) = await metrics.measuring(body)
        let duration = ContinuousClock.now - started
        metrics.record(policy: policy?.name, endpoint: endpoint, decision: decision, duration: duration)
        if decisionLog.wantsRequest, decision.request == nil { decision.request = request() }
        decision.route = route
        decisionLog.record(policy: policy?.name, endpoint: endpoint, decision: decision, duration: duration)
        return response
    }

    /// Answers and records a call refused before any policy judged it.
    private func refused(_ refusal: FrontRefusal, endpoint: String, policy: Policy? = nil) async -> Response {
        await judged(policy, endpoint: endpoint) { (ForwardAuthEndpoint.response(FrontAnswer(refusal)), Decision(.refused, code: refusal.code)) }
    }

    /// Answers and records a call naming a policy the server does not serve (404).
    private func unknownPolicy(_ name: some StringProtocol, endpoint: String) async -> Response {
        let message = "no policy '\(InertText.escaped(String(name.prefix(200))))' is served"
        return await judged(nil, endpoint: endpoint) {
            (ServerResponses.error(.notFound, code: "unknown_policy", message), Decision(.refused, code: "unknown_policy"))
        }
    }

    /// What SIGHUP does: the decision log file is opened again (after a rotation) and the
    /// policies are reloaded.
    @discardableResult
    public func hangUp(logger: Logger = Logger(label: "policy-engine.serve")) -> ServedPolicies.ReloadStatus {
        do {
            try decisionLog.reopen()
        } catch {
            logger.error("the decision log could not be reopened; it is still written where it was", metadata: ["error": "\(error)"])
        }
        return reload(logger: logger)
    }

    /// Compiles the policy directory again and serves it if every file compiles (SIGHUP); a
    /// failure keeps the previous policies serving. Either way it is logged and counted.
    @discardableResult
    public func reload(logger: Logger = Logger(label: "policy-engine.serve")) -> ServedPolicies.ReloadStatus {
        record(policies.reload(), logger: logger)
    }

    private func record(_ status: ServedPolicies.ReloadStatus, logger: Logger) -> ServedPolicies.ReloadStatus {
        metrics.recordReload(succeeded: status.succeeded)
        if status.succeeded {
            // Key sets the new policies name are fetched by `keepFetched` within a second.
            let set = policies.current
            logger.info("policies reloaded", metadata: ["policies": "\(set.policies.keys.sorted().joined(separator: ","))"])
        } else {
            logger.error("reload failed; the previous policies keep serving",
                         metadata: ["problems": "\(status.problems.map(\.description).joined(separator: " | "))"])
        }
        return status
    }

    /// Serves until SIGTERM or SIGINT (or the task is cancelled); `onRunning` gets the bound
    /// port once the server listens. Remote key sets are fetched at once and kept fetched
    /// (`JWKSCache.keepFetched`): one that fails is retried in the background, so `/readyz`,
    /// which answers 503 until every one is available, recovers without traffic. With
    /// `watchEvery`, the policy directory is checked that often and reloaded when what it
    /// holds changed.
    ///
    /// The first SIGTERM or SIGINT drains: `/readyz` answers 503 at once, calls are still served
    /// for `configuration.drain` with `Connection: close`, then the listener closes and the calls
    /// in flight finish. A second signal ends at once.
    ///
    /// - Throws: the server's error when it cannot bind or fails.
    public func run(logger: Logger = Logger(label: "policy-engine.serve"), watchEvery: Duration? = .seconds(1),
                    onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let listening = Mutex(false)
        let application = application(logger: logger) { port in
            listening.withLock { $0 = true }
            await onRunning(port)
        }
        let store = (replayStore as? any Service).map { [$0] } ?? []
        let services = ServiceGroup(configuration: .init(services: store + [application], gracefulShutdownSignals: [],
                                                         cancellationSignals: [], logger: logger))
        // Every part is a child, so that whichever ends the server (the services stopping, a
        // second signal, the caller's cancellation) ends the others through the group.
        do {
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { await policies.keyCache.keepFetched { policies.current.remoteKeySources } }
                if let watchEvery {
                    group.addTask {
                        while !Task.isCancelled {
                            try? await Task.sleep(for: watchEvery)
                            if let status = policies.reloadIfChanged() { _ = record(status, logger: logger) }
                        }
                    }
                }
                group.addTask { try await stopOnSignals(services, logger: logger) }
                group.addTask {
                    try await services.run()
                    throw Stopped.servicesEnded
                }
            }
        } catch Stopped.servicesEnded {
            return
        } catch Stopped.interrupted {
            logger.info("stopped at once by a second signal")
        } catch where !listening.withLock({ $0 }) {
            throw ListenError(host: configuration.host, port: configuration.port, underlying: error)
        }
    }

    /// How the server's task group ends without a failure.
    private enum Stopped: Error {
        /// The HTTP server stopped (after a drain, or cancelled).
        case servicesEnded
        /// A second SIGTERM or SIGINT during the drain.
        case interrupted
    }

    /// Drains on the first SIGTERM or SIGINT, then shuts `services` down gracefully; throws
    /// `Stopped.interrupted` on a second signal, which ends the server at once.
    private func stopOnSignals(_ services: ServiceGroup, logger: Logger) async throws {
        var signals = await UnixSignalsSequence(trapping: .sigterm, .sigint).makeAsyncIterator()
        guard let first = await signals.next() else { return }
        drain.begin()
        let period = configuration.drain
        logger.info("draining: /readyz answers 503, calls are served with Connection: close until the listener closes",
                    metadata: ["signal": "\(first)", "drain_s": "\(period.seconds)"])
        let shutdown = Task {
            guard (try? await Task.sleep(for: period)) != nil else { return }
            await services.triggerGracefulShutdown()
        }
        defer { shutdown.cancel() }
        guard await signals.next() != nil else { return await shutdown.value }
        throw Stopped.interrupted
    }

    /// The Hummingbird application.
    func application(logger: Logger, onRunning: @escaping @Sendable (Int) async -> Void) -> some ApplicationProtocol {
        let router = Router()
        let served = policies
        let maxBodyBytes = configuration.maxBodyBytes
        router.get("/healthz") { _, _ in ServerResponses.json(#"{"status":"alive"}"#) }
        let metrics = metrics
        let signatureCache = signatureCache
        router.get("/metrics") { _, _ in
            let text = metrics.text(keyCache: served.keyCache, signatureCache: signatureCache)
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
        let drain = drain
        router.get("/readyz") { _, _ in
            if drain.isDraining { return ServerResponses.json(#"{"status":"draining"}"#, status: .serviceUnavailable) }
            let set = served.current
            let withoutKeys = set.sourcesWithoutKeys()
            var object = JSONObject(["status": .string(withoutKeys.isEmpty ? "ready" : "waiting_for_keys"),
                                     "policies": .array(set.policies.keys.sorted().map { .string($0) })])
            if !withoutKeys.isEmpty {
                object.set("keys_unavailable", .array(withoutKeys.map {
                    .object(JSONObject(["source": .string($0.source.description), "problem": .string($0.problem)]))
                }))
            }
            if let reload = served.lastReload {
                object.set("last_reload", .object(JSONObject([
                    "time": .string(UnixTime.iso8601(reload.time.timeIntervalSince1970.rounded(.down))), "succeeded": .bool(reload.succeeded),
                    "problems": .array(reload.problems.map { .string($0.description) }),
                ])))
            }
            return ServerResponses.json(JSONValue.object(object).serializedText, status: withoutKeys.isEmpty ? .ok : .serviceUnavailable)
        }
        router.post("/v1/check/{policy}") { request, context in
            guard let name = context.parameters.get("policy"), let policy = served.current.policies[name] else {
                return await self.unknownPolicy(context.parameters.get("policy") ?? "", endpoint: "check")
            }
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: maxBodyBytes)
            } catch {
                return await self.judged(policy, endpoint: "check") {
                    (ServerResponses.error(.contentTooLarge, code: "body_too_large", "the call is larger than \(maxBodyBytes) bytes"),
                     Decision(.refused, code: "body_too_large"))
                }
            }
            return await self.judged(policy, endpoint: "check") { await CheckEndpoint.answer(policy: policy, body: Array(buffer: body), signatureCache: self.signatureCache, replayStore: self.replayStore) }
        }
        let routes = configuration.routes
        for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete, .head, .options] {
            router.on("/v1/authz", method: method) { request, _ in
                let incoming: IncomingRequest
                let route: ServeConfiguration.Route
                let inputs: [String: JSONValue]
                do throws(FrontRefusal) {
                    incoming = try IncomingRequest.forwarded(request.head, callHost: false).get()
                    (route, inputs) = try ForwardAuthEndpoint.route(incoming, in: routes).get()
                } catch {
                    return await self.refused(error, endpoint: "authz")
                }
                let set = served.current
                guard let front = set.fronts[route.policy] else {
                    return await self.refused(FrontRefusal(.forbidden, code: "no_route", "no route takes this request"), endpoint: "authz")
                }
                return await self.judged(front.policy, endpoint: "authz", request: incoming.document, route: "\(route.location.file):\(route.location.line)") {
                    await ForwardAuthEndpoint.answer(front, request: incoming, inputs: inputs, outputHeaders: route.outputHeaders, signatureCache: self.signatureCache,
                                                    replayStore: self.replayStore)
                }
            }
            for path in ["/v1/authz/{policy}", "/v1/authz/{policy}/**"] { router.on(RouterPath(path), method: method) { request, _ in
                let set = served.current
                let (name, appendedTarget) = ForwardAuthEndpoint.namedPolicy(request.head.path ?? "")
                guard let front = set.fronts[String(name)] else {
                    return await self.unknownPolicy(name, endpoint: "authz")
                }
                let incoming: IncomingRequest
                switch IncomingRequest.forwarded(request.head, appendedTarget: appendedTarget) {
                case let .success(parsed): incoming = parsed
                case let .failure(refusal): return await self.refused(refusal, endpoint: "authz", policy: front.policy)
                }
                return await self.judged(front.policy, endpoint: "authz", request: incoming.document) {
                    await ForwardAuthEndpoint.answer(front, request: incoming, signatureCache: self.signatureCache, replayStore: self.replayStore)
                }
            } }
        }
        let limits = configuration
        let connections = OpenConnections(limit: limits.maxConnections)
        var http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionCap(connections: connections, drain: drain), RequestDeadline(timeout: TimeAmount(limits.requestTimeout))],
            idleTimeout: TimeAmount(limits.idleTimeout))
        http1.httpDecoder = .init(maxHeaderFieldSize: limits.maxHeaderBytes, maxHeaderListSize: limits.maxHeaderBytes,
                                  maxHeaderFieldCount: limits.maxHeaderFields)
        return Application(
            router: router,
            server: .http1(configuration: http1),
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: "policy-run"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: logger
        )
    }
}
