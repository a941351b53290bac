internal import Foundation
internal import Hummingbird
internal import HTTPTypes
internal import PolicyRuntime
internal import PolicyJOSE

/// The server's JSON answers.
enum ServerResponses {
    /// `body` as `application/json` with `status`.
    static func json(_ text: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: text + "\n")))
    }

    /// `{"error": {"code", "message"}}`: a call the server cannot answer with a verdict.
    static func error(_ status: HTTPResponse.Status, code: String, _ message: String) -> Response {
        json(JSONValue.object(JSONObject(["error": .object(JSONObject(["code": .string(code), "message": .string(message)]))])).serializedText, status: status)
    }

    /// The same, for an error of the engine.
    static func error(_ status: HTTPResponse.Status, _ error: some EngineError) -> Response {
        self.error(status, code: error.codeName, error.message)
    }
}

extension JSONValue {
    /// The compact JSON text.
    var serializedText: String { String(decoding: serializedBytes(), as: UTF8.self) }
}
