internal import Hummingbird
internal import HTTPTypes
internal import NIOCore
@_spi(RuleAuthoring) internal import PolicyJOSE

/// The playground's answers: its page's three files, and JSON.
enum PlaygroundResponses {
    /// `text` with `contentType`.
    static func text(_ text: String, contentType: String) -> Response {
        Response(status: .ok, headers: [.contentType: contentType], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// `value` as JSON with `status`.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"],
                 body: ResponseBody(byteBuffer: ByteBuffer(bytes: value.serializedBytes())))
    }

    /// `{"error": {"code", "message"}}`.
    static func error(_ status: HTTPResponse.Status, code: String, _ message: String) -> Response {
        json(Playground.Refusal(code: code, message: message).json, status: status)
    }

    /// A refusal of the playground, with the status its code calls for.
    static func refused(_ refusal: Playground.Refusal) -> Response {
        let status: HTTPResponse.Status = switch refusal.code {
        case "not_found": .notFound
        case "too_large": .contentTooLarge
        case "not_a_file", "write_failed", "exists": .conflict
        default: .badRequest
        }
        return json(refusal.json, status: status)
    }
}
