internal import Foundation
internal import PolicyRuntime
internal import PolicyJOSE
internal import Rules

/// A `POST /v1/check/{policy}` body: `{token | request | callback, inputs, now?}`, read strictly
/// (the engine's JSON parser: duplicate names, bad escapes and excess depth refused).
struct CheckCall {
    var token: String?
    var request: JSONObject?
    var callback: String?
    var inputs: [String: JSONValue] = [:]
    /// Unix seconds or RFC 3339; nil: the server's clock.
    var now: UnixTime?

    static let members: Set<String> = ["token", "request", "callback", "inputs", "now"]

    /// Why a call could not be read.
    struct Problem: Error {
        let message: String
    }

    init(json bytes: [UInt8]) throws(Problem) {
        let object: JSONObject
        do {
            object = try JSONParser().parseObject(bytes, what: "the call")
        } catch {
            throw Problem(message: "the body is not a JSON object: \(error.message)")
        }
        for member in object.members where !Self.members.contains(member.name) {
            throw Problem(message: "unknown member '\(member.name)'; a call holds token, request, callback, inputs and now")
        }
        switch object["token"] {
        case nil: break
        case let .string(text)?: token = text
        case let other?: throw Problem(message: "'token' must be a string, found \(other.typeName)")
        }
        switch object["request"] {
        case nil: break
        case let .object(request)?: self.request = request
        case let other?: throw Problem(message: "'request' must be an object {method, url, headers, body}, found \(other.typeName)")
        }
        switch object["callback"] {
        case nil: break
        case let .string(url)?: callback = url
        case let other?: throw Problem(message: "'callback' must be a URL string, found \(other.typeName)")
        }
        switch object["inputs"] {
        case nil: break
        case let .object(values)?: inputs = Dictionary(values.members.map { ($0.name, $0.value) }) { $1 }
        case let other?: throw Problem(message: "'inputs' must be an object, found \(other.typeName)")
        }
        switch object["now"] {
        case nil: break
        case let .number(number)?:
            guard let time = UnixTime.checked(number.doubleValue) else { throw Problem(message: "'now' is out of range: \(number.doubleValue)") }
            now = time
        case let .string(text)?:
            guard let time = UnixTime(parsing: text) else { throw Problem(message: "'now' must be unix seconds or RFC 3339, found '\(text)'") }
            now = time
        case let other?: throw Problem(message: "'now' must be unix seconds or RFC 3339, found \(other.typeName)")
        }
    }

    /// The subjects the call names other than its token.
    var subjects: [any PolicySubject] {
        var subjects: [any PolicySubject] = []
        if let request { subjects.append(RequestSubject(object: request)) }
        if let callback { subjects.append(CallbackSubject(url: callback)) }
        return subjects
    }
}
