internal import NIOCore
internal import NIOHTTPTypes
internal import HTTPTypes

/// Bounds the time from a request's head to its last byte: a client that sends its body too
/// slowly (a slow-loris) gets 408 and its connection closed instead of holding a task.
///
/// The head itself is bounded by the idle timeout, which runs until a whole head is decoded.
final class RequestDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let timeout: TimeAmount
    private var timer: Scheduled<Void>?
    /// Requests whose answer has not ended, the slow one included.
    private var unanswered = 0
    /// Whether an answer is being written.
    private var answering = false

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            unanswered += 1
            timer?.cancel()
            timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in expire(context) }
        case .body: break
        case .end:
            timer?.cancel()
            timer = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head: answering = true
        case .body: break
        case .end:
            answering = false
            unanswered -= 1
        }
        context.write(data, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    private func expire(_ context: ChannelHandlerContext) {
        timer = nil
        // Only when the slow request is the one answer owed can a 408 be read as its answer.
        guard unanswered == 1, !answering else { return context.close(promise: nil) }
        let body = ByteBuffer(string: #"{"error":{"code":"request_timeout","message":"the request was not received in time"}}"#)
        let head = HTTPResponse(status: .requestTimeout, headerFields: [
            .contentType: "application/json", .contentLength: "\(body.readableBytes)", .connection: "close",
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}
