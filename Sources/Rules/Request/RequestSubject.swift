@_spi(RuleAuthoring) public import PolicyRuntime
@_spi(RuleAuthoring) public import PolicyJOSE

/// An HTTP request as a policy checks it (POLICY-FORMAT.md section 5), decoded once: the query
/// split and percent-decoded, header names folded to lower case, a JSON body parsed once.
///
/// Decoding never throws: what cannot be decoded is recorded in `problems` (reported by the
/// `request.structure` rule), and the parts that did decode stay usable for the other rules.
public struct RequestSubject: PolicySubject {
    /// Judged by a policy's `request:` section.
    public static let section = "request"
    /// The largest request document read, and the largest body within it.
    package static let maxBytes = 1 << 20

    /// Something the request's own structure gets wrong, with the finding code it is reported as.
    package struct Problem: Sendable, Equatable {
        package let code: FindingCode
        package let message: String
    }

    package let method: String?
    /// The path as sent, still percent-encoded (rules normalise it, see `PathNormalization`); nil
    /// when the URL is missing or does not decode.
    package let path: String?
    /// The query parameters; nil when the URL is missing or its query does not decode.
    package let query: FormParameters?
    /// Header values by lower-cased name, in order; a header sent twice has two values.
    package let headers: [String: [String]]
    /// The body as sent: a JSON value, or text.
    package let body: Body?
    /// What could not be decoded, in request order.
    package let problems: [Problem]
    /// The scheme, host and port the request was sent to: an absolute URL's, or those an HTTP
    /// front read (`X-Forwarded-Proto` and `-Host`, or the call's own); nil for an origin-form
    /// URL in a request document.
    package let origin: RequestOrigin?
    /// The `Authorization` header's token and scheme, read once when the request is decoded:
    /// `bearer` and `dpop` judge it, and the evaluation takes it as the policy's token.
    package let credential: Result<AuthorizationCredential, AuthorizationCredential.Problem>
    /// The `DPoP` header's proof, read once when the request is decoded; nil without one.
    package let dpopProof: Result<DPoPProof, DPoPProof.Problem>?

    package enum Body: Sendable {
        case json(JSONValue)
        /// Text, with the result of parsing it as JSON (strictly) for rules that need a JSON body.
        case text(String, parsed: Result<JSONValue, JOSEError>)
        /// An `application/x-www-form-urlencoded` body, read as an object of strings.
        case form(FormParameters)

        /// The body as JSON, if it is JSON, text that parses as JSON, or a form.
        package var json: JSONValue? {
            switch self {
            case let .json(value): value
            case let .text(_, parsed): try? parsed.get()
            case let .form(parameters): .object(JSONObject(members: parameters.pairs.map { JSONMember(name: $0.name, value: .string($0.value)) }))
            }
        }
    }

    /// Decodes a request document `{"method", "url", "headers", "body"}`.
    public init(json bytes: [UInt8]) {
        guard bytes.count <= Self.maxBytes else {
            self.init(problem: Problem(code: .bodyTooLarge, message: "the request has \(bytes.count) bytes; at most \(Self.maxBytes) are accepted"))
            return
        }
        do {
            self.init(object: try JSONParser().parseObject(bytes, what: "a request"))
        } catch {
            self.init(problem: Problem(code: .requestMalformed, message: "the request is not a JSON object {method, url, headers, body}: \(error.message)"))
        }
    }

    private init(problem: Problem) {
        method = nil
        path = nil
        query = nil
        headers = [:]
        body = nil
        problems = [problem]
        origin = nil
        credential = .failure(.absent)
        dpopProof = nil
    }

    /// Decodes a request from its members.
    public init(object: JSONObject) {
        var problems: [Problem] = []
        func malformed(_ message: String) { problems.append(Problem(code: .requestMalformed, message: message)) }
        for member in object.members where !["method", "url", "headers", "body"].contains(member.name) {
            malformed("the request has an unknown member '\(member.name)' (expected method, url, headers, body)")
        }

        switch object["method"] {
        case let .string(text)?: method = text
        case nil: method = nil; malformed("the request has no method")
        case let other?: method = nil; malformed("the request's method is \(other.typeName), not a string")
        }

        var fields: [(name: String, value: String)] = []
        switch object["headers"] {
        case nil: break
        case let .object(members)?:
            for field in members.members {
                let values: [JSONValue] = field.value.arrayValue ?? [field.value]
                for value in values {
                    guard let text = value.stringValue else {
                        malformed("header '\(field.name)' is \(value.typeName); header values are strings (a list for a repeated header)")
                        continue
                    }
                    fields.append((field.name, text))
                }
            }
        case let other?: malformed("the request's headers are \(other.typeName), not an object")
        }
        let headers = Self.headers(fields, problems: &problems)
        self.headers = headers
        credential = AuthorizationCredential.read(headers["authorization"] ?? [])
        dpopProof = DPoPProof.read(headers["dpop"] ?? [])

        var path: String?
        var query: FormParameters?
        var origin: RequestOrigin?
        switch object["url"] {
        case let .string(url)?:
            switch RequestTarget.parse(url) {
            case let .success(target): (path, query, origin) = (String(target.rawPath), target.query, target.origin)
            case let .failure(problem): problems.append(Problem(code: .urlInvalid, message: problem.message))
            }
        case nil: malformed("the request has no url")
        case let other?: malformed("the request's url is \(other.typeName), not a string")
        }
        self.path = path
        self.query = query
        self.origin = origin

        switch object["body"] {
        case nil, .null?:
            body = nil
        case let .string(text)? where (headers["content-type"]?.first?.lowercased() ?? "").hasPrefix("application/x-www-form-urlencoded"):
            do {
                let form = try FormParameters(decoding: Substring(text))
                if let repeated = form.repeatedNames.first {
                    problems.append(Problem(code: .parameterRepeated, message: "the form body repeats the parameter '\(repeated)'"))
                }
                body = .form(form)
            } catch {
                body = .text(text, parsed: .failure(JOSEError(.invalidJSON, "not a form")))
                problems.append(Problem(code: .bodyNotJSON, message: "the body is declared a form, but \(error.description)"))
            }
        case let .string(text)?:
            let parsed = Result { () throws(JOSEError) in try JSONParser().parse(Array(text.utf8)) }
            body = .text(text, parsed: parsed)
            let declared = headers["content-type"]?.first?.lowercased() ?? ""
            if case let .failure(error) = parsed, declared.hasPrefix("application/json") || declared.contains("+json") {
                problems.append(Problem(code: .bodyNotJSON, message: "the body is declared \(declared) but is not JSON: \(error.message)"))
            }
        case let value?:
            body = .json(value)
        }
        self.problems = problems
    }

    /// A request an HTTP front has read: its method, the origin it was sent to, its target (the
    /// parse its routing reads too) and its header fields in the order sent. The body is not read.
    package init(method: String, origin: RequestOrigin?, target: RequestTarget, headerFields: [(name: String, value: String)]) {
        var problems: [Problem] = []
        self.method = method
        self.origin = target.origin ?? origin
        path = String(target.rawPath)
        query = target.query
        headers = Self.headers(headerFields, problems: &problems)
        credential = AuthorizationCredential.read(headers["authorization"] ?? [])
        dpopProof = DPoPProof.read(headers["dpop"] ?? [])
        body = nil
        self.problems = problems
    }

    /// Header values by lower-cased name, in order; a field that cannot be used is a problem.
    private static func headers(_ fields: [(name: String, value: String)], problems: inout [Problem]) -> [String: [String]] {
        var headers: [String: [String]] = [:]
        for field in fields {
            if let problem = headerProblem(name: field.name, value: field.value) {
                problems.append(Problem(code: .headerInvalid, message: problem))
                continue
            }
            headers[field.name.lowercased(), default: []].append(field.value)
        }
        return headers
    }

    /// The values of a header, by case-insensitive name, in the order sent.
    package func header(_ name: String) -> [String] {
        headers[name.lowercased()] ?? []
    }

    /// Why a header cannot be used: a name that is not an RFC 9110 token, or a value with
    /// control characters or bytes outside visible ASCII (obsolete text is refused, not guessed).
    static func headerProblem(name: String, value: String) -> String? {
        guard HTTPToken.isToken(name) else {
            return "'\(String(name.unicodeScalars.prefix(40).map { $0.isASCII && $0.value >= 0x20 ? Character($0) : "?" }))' is not a valid header name"
        }
        if let bad = value.utf8.firstIndex(where: { !(0x20...0x7E).contains($0) && $0 != 0x09 }) {
            let position = value.utf8.distance(from: value.utf8.startIndex, to: bad)
            return "header '\(name)' has a control or non-ASCII byte at position \(position + 1)"
        }
        return nil
    }
}

extension EvaluationContext {
    /// The request; request rules only run when the caller supplied one.
    var request: RequestSubject { subject(RequestSubject.self)! }
}
