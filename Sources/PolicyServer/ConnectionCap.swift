internal import NIOCore
internal import NIOHTTPTypes
internal import HTTPTypes
internal import Synchronization

/// The number of connections a server holds open, shared by every connection's `ConnectionCap`.
final class OpenConnections: Sendable {
    /// The most held at once; one more is answered 503 and closed.
    let limit: Int
    private let count = Atomic(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes a place; false (and no place taken) when every place is held.
    func enter() -> Bool {
        if count.add(1, ordering: .relaxed).newValue <= limit { return true }
        count.subtract(1, ordering: .relaxed)
        return false
    }

    func leave() {
        count.subtract(1, ordering: .relaxed)
    }
}

/// Holds a connection's place among `OpenConnections` while it is open; a connection past the
/// limit has its first request answered 503 `Connection: close`, so a proxy in front reports
/// the overload instead of a reset, and is closed.
///
/// Health and metrics (`GET /healthz`, `/readyz`, `/metrics`) are answered past the limit too,
/// each on its own connection closed after the answer: a kubelet's probe during a connection
/// flood must not fail and restart the sidecar, turning an overload into an outage. While the
/// server drains, every answer says `Connection: close` and its connection is closed after it
/// (RFC 9112 §9.6), so keep-alive clients move to another instance.
final class ConnectionCap: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The paths answered past the limit.
    static let probePaths: Set<String> = ["/healthz", "/readyz", "/metrics"]

    private let connections: OpenConnections
    private let drain: ServerDrain
    private var admitted: Bool?
    /// Whether a probe past the limit is being answered: its answer closes the connection.
    private var probing = false
    /// Whether the probe's request has ended: anything pipelined after it is dropped.
    private var probeRead = false
    /// Whether the answer being written closes the connection (a probe past the limit, a drain).
    private var closing = false

    init(connections: OpenConnections, drain: ServerDrain) {
        self.connections = connections
        self.drain = drain
    }

    func handlerAdded(context: ChannelHandlerContext) {
        admitted = connections.enter()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        release()
    }

    func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard admitted == false else { return context.fireChannelRead(data) }
        let part = unwrapInboundIn(data)
        if probing {
            guard !probeRead else { return }
            if case .end = part { probeRead = true }
            return context.fireChannelRead(data)
        }
        guard case let .head(request) = part else { return }
        if request.method == .get, let path = request.path, Self.probePaths.contains(String(path.prefix { $0 != "?" })) {
            probing = true
            return context.fireChannelRead(data)
        }
        let body = ByteBuffer(string: #"{"error":{"code":"too_many_connections","message":"the server holds as many connections as it may; try again"}}"#)
        let head = HTTPResponse(status: .serviceUnavailable, headerFields: [
            .contentType: "application/json", .contentLength: "\(body.readableBytes)", .connection: "close", .retryAfter: "1",
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if !closing, drain.isDraining || probing, case .head = unwrapOutboundIn(data) { closing = true }
        guard closing else { return context.write(data, promise: promise) }
        switch unwrapOutboundIn(data) {
        case var .head(response):
            response.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(response)), promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.cascade(to: promise)
            context.writeAndFlush(data, promise: written)
            written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    private func release() {
        if admitted == true { connections.leave() }
        admitted = nil
    }
}
