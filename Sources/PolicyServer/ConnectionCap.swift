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
final class ConnectionCap: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    private let connections: OpenConnections
    private var admitted: Bool?

    init(connections: OpenConnections) {
        self.connections = connections
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
        guard case .head = unwrapInboundIn(data) else { return }
        let body = ByteBuffer(string: #"{"error":{"code":"too_many_connections","message":"the server holds as many connections as it may; try again"}}"#)
        let head = HTTPResponse(status: .serviceUnavailable, headerFields: [
            .contentType: "application/json", .contentLength: "\(body.readableBytes)", .connection: "close", .retryAfter: "1",
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    private func release() {
        if admitted == true { connections.leave() }
        admitted = nil
    }
}
