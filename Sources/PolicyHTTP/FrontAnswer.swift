package import HTTPTypes
internal import PolicyRuntime
internal import PolicyJOSE

/// What an HTTP front answers: a status, header fields, and for a refusal before any policy
/// judged, a JSON body `{"error": {"code", "message"}}`. The server and the middleware each turn
/// it into their response type, so both answer alike.
package struct FrontAnswer: Sendable {
    /// 200, 400, 401 or 403.
    package let status: HTTPResponse.Status
    /// Outputs on success, `WWW-Authenticate` on a 401 or a token's 403, `Content-Type` with a body.
    package let headerFields: HTTPFields
    /// The JSON body of a refusal; nil for a verdict's answer.
    package let body: String?

    init(status: HTTPResponse.Status, headers: [(HTTPField.Name, String)]) {
        self.status = status
        headerFields = HTTPFields(headers.map { HTTPField(name: $0.0, value: $0.1) })
        body = nil
    }

    /// The answer to a request refused before judgement.
    package init(_ refusal: FrontRefusal) {
        status = refusal.status
        headerFields = [.contentType: "application/json"]
        let error = JSONObject(["code": .string(refusal.code), "message": .string(refusal.message)])
        body = String(decoding: JSONValue.object(JSONObject(["error": .object(error)])).serializedBytes(), as: UTF8.self) + "\n"
    }
}
