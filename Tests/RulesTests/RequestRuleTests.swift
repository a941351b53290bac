@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules
import Testing

/// The `request` section: decoding a request once, and each rule on good and hostile input.
@Suite("Request rules")
struct RequestRuleTests {
    static let policyText = """
    policy: request
    request:
      method: [POST, PUT]
      path: {prefix: /auth/v1/}
      headers:
        Content-Type: {prefix: application/json}
        X-Request-Id: {exists: true}
      query:
        tenant: acme
      body:
        username: {type: string}
        device.id: {min_length: 3}
    """

    static let policy = try! Policy.load(text: policyText, file: "request.yaml", environment: [:])

    /// A good request with `changes` applied to its members.
    static func request(method: String = "POST", url: String = "https://hub.example.com/auth/v1/authenticate?tenant=acme",
                        headers: String = #"{"content-type": "application/json", "x-request-id": "r-1"}"#,
                        body: String = #""{\"username\": \"alice\", \"device\": {\"id\": \"d-1\"}}""#) -> RequestSubject {
        RequestSubject(json: Array(#"{"method": "\#(method)", "url": "\#(url)", "headers": \#(headers), "body": \#(body)}"#.utf8))
    }

    static func codes(_ request: RequestSubject) throws -> [FindingCode] {
        try policy.evaluateNow(subjects: [request], now: UnixTime(seconds: TokenFixture.now)).codes
    }

    @Test("a good request passes every rule, with headers matched case-insensitively")
    func good() throws {
        let verdict = try Self.policy.evaluateNow(subjects: [Self.request()], now: UnixTime(seconds: TokenFixture.now), trace: true)
        #expect(verdict.valid && !verdict.verified)
        #expect(verdict.trace?.entries.map(\.rule) == ["request.structure", "request.method", "request.path", "request.headers.content-type",
                                                       "request.headers.x-request-id", "request.query.tenant", "request.body.username", "request.body.device.id"])
        #expect(try Self.codes(Self.request(url: "/auth/v1/x?tenant=acme", body: #"{"username": "bob", "device": {"id": "abc"}}"#)).isEmpty)
    }

    @Test("each rule fails with its own code")
    func mismatches() throws {
        #expect(try Self.codes(Self.request(method: "post")) == [.methodNotAllowed])
        #expect(try Self.codes(Self.request(url: "/auth/v2/x?tenant=acme")) == [.pathMismatch])
        #expect(try Self.codes(Self.request(headers: #"{"content-type": "text/plain", "x-request-id": "r"}"#)) == [.headerMismatch])
        #expect(try Self.codes(Self.request(headers: #"{"Content-Type": "application/json"}"#)) == [.headerMismatch])
        #expect(try Self.codes(Self.request(url: "/auth/v1/x?tenant=other")) == [.queryMismatch])
        #expect(try Self.codes(Self.request(url: "/auth/v1/x")) == [.queryMismatch])
        #expect(try Self.codes(Self.request(url: "/auth/v1/x?tenant=acme&tenant=evil")) == [.parameterRepeated])
        #expect(try Self.codes(Self.request(body: #"{"username": 7, "device": {"id": "abc"}}"#)) == [.bodyMismatch])
        #expect(try Self.codes(Self.request(body: #"{"username": "a"}"#)) == [.fieldMissing])
        #expect(try Self.codes(Self.request(headers: #"{"content-type": "application/json", "x-request-id": ["a", "b"]}"#)).isEmpty)
    }

    @Test("bad input is a finding with its own code, never a crash")
    func badInput() throws {
        let cases: [(RequestSubject, FindingCode)] = [
            (RequestSubject(json: Array("not json".utf8)), .requestMalformed),
            (RequestSubject(json: Array(#"["POST"]"#.utf8)), .requestMalformed),
            (RequestSubject(json: Array(#"{"method": "POST", "url": "/a", "extra": 1}"#.utf8)), .requestMalformed),
            (RequestSubject(json: Array(#"{"method": 1, "url": "/a"}"#.utf8)), .requestMalformed),
            (RequestSubject(json: Array(repeating: 0x20, count: RequestSubject.maxBytes + 1)), .bodyTooLarge),
            (Self.request(url: "ftp://hub.example.com/auth/v1/x"), .urlInvalid),
            (Self.request(url: "/auth/v1/x y"), .urlInvalid),
            (Self.request(url: "/auth/v1/%zz?tenant=acme"), .urlInvalid),
            (Self.request(url: "/auth/v1/x?tenant=%ff"), .urlInvalid),
            (Self.request(headers: #"{"content-type": "application/json", "x-request-id": "a\u0000b"}"#), .headerInvalid),
            (Self.request(headers: #"{"content-type": "application/json", "x-request-id": "é"}"#), .headerInvalid),
            (Self.request(headers: #"{"content type": "application/json"}"#), .headerInvalid),
            (Self.request(body: #""{\"username\": \"a\", \"username\": \"b\"}""#), .bodyNotJSON),
            (Self.request(body: #""{nope""#), .bodyNotJSON),
        ]
        for (request, code) in cases {
            let verdict = try Self.policy.evaluateNow(subjects: [request], now: UnixTime(seconds: TokenFixture.now))
            #expect(!verdict.valid)
            #expect(verdict.codes.first == code, "\(request.problems.map(\.message)) → \(verdict.codes)")
        }
        // A text body that is not JSON is only a problem for rules that need JSON.
        let plain = Self.request(headers: #"{"content-type": "text/plain", "x-request-id": "r"}"#, body: #""hello""#)
        #expect(plain.problems.isEmpty)
        #expect(try Self.codes(plain).contains(.bodyNotJSON))
    }

    @Test("the path is kept as sent for the path rule to normalise, with + staying +; the query is form-decoded")
    func decoding() {
        let request = Self.request(url: "/a%41b+c?q=x+y%26z")
        #expect(request.path == "/a%41b+c")
        #expect(RequestPath.normalize("/a%41b+c", .standard) == .success("/aAb+c"))
        #expect(request.query?.single("q") == "x y&z")
        #expect(Self.request(url: "https://hub.example.com").path == "/")
        #expect(Self.request(url: "/a%ZZ").problems.map(\.code) == [.urlInvalid] && Self.request(url: "/a%00b").problems.map(\.code) == [.urlInvalid])
        #expect(Self.request(url: "https:///nohost").problems.map(\.code) == [.urlInvalid])
    }

    @Test("compile errors: an empty method list, a bad header name, a body path")
    func compileErrors() {
        let cases: [(String, DiagnosticCode)] = [
            ("request:\n  method: []\n", .invalidValue),
            ("request:\n  headers: {\"Bad Name\": x}\n", .invalidValue),
            ("request:\n  body: {\"a..b\": x}\n", .invalidValue),
            ("request:\n  query: [a]\n", .wrongType),
            ("request:\n  methd: GET\n", .unknownKey),
        ]
        for (text, code) in cases {
            let found = CompileErrorTests.diagnostics("policy: p\n" + text)
            #expect(found.contains { $0.code == code && $0.severity == .error }, "\(text): \(found.map(\.description))")
        }
    }
}
