import HTTPTypes
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import PolicyHTTP
import Rules
import Testing

/// The one parse of a request: hosts normalised or refused, forwarded headers read once, the
/// path routing reads the same as the path rules read.
@Suite("Incoming requests")
struct IncomingRequestTests {
    static func head(_ path: String = "/v1/authz", authority: String? = "127.0.0.1:8181", _ fields: [(String, String)] = []) -> HTTPRequest {
        var headerFields = HTTPFields()
        for (name, value) in fields { headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return HTTPRequest(method: .get, scheme: "http", authority: authority, path: path, headerFields: headerFields)
    }

    static func code<Value>(_ result: Result<Value, FrontRefusal>) -> String? {
        if case let .failure(refusal) = result { return refusal.code }
        return nil
    }

    @Test("hosts: lower case, one trailing dot dropped, the port apart; anything else refused")
    func hosts() {
        #expect(RequestHost("Admin.Example.COM.") == RequestHost("admin.example.com"))
        #expect(RequestHost("admin.example.com.:8443")?.name == "admin.example.com" && RequestHost("admin.example.com.:8443")?.port == 8443)
        #expect(RequestHost("[::1]:80")?.name == "[::1]" && RequestHost("10.0.0.1")?.name == "10.0.0.1")
        for bad in ["", ".", "admin.example.com:x", "admin.example.com..", ".admin", "a..b", "admin example", "%61dmin", "a:1:2", "a:65536", "a:",
                    "[::1", "[]", "[g::1]", "admin.example.com/x", "user@admin", "ådmin", "admin\u{0}"] {
            #expect(RequestHost(bad) == nil, "'\(bad)' was read as a host")
        }
    }

    @Test("origins: scheme and host in any case and the default port are one origin; user information or a bad port is no URL")
    func origins() throws {
        let origin = { (url: String) in try RequestTarget.parse(url).get().origin?.description }
        #expect(try origin("HTTPS://API.Example.com:443/x") == "https://api.example.com")
        #expect(try origin("http://api.example.com.:8080") == "http://api.example.com:8080")
        #expect(try origin("https://[::1]:8443/a?b") == "https://[::1]:8443")
        #expect(try origin("/x") == nil)
        #expect(try RequestTarget.parse("https://a.example/x#f").get().hasQueryOrFragment)
        #expect(try !RequestTarget.parse("https://a.example/x").get().hasQueryOrFragment)
        for bad in ["https://user@api.example.com/x", "https://api.example.com:99999/", "https://api.example.com:x/", "https:///x", "https://"] {
            #expect(throws: RequestTarget.Problem.self, "'\(bad)' was read") { try RequestTarget.parse(bad).get() }
        }
        let forwarded = try IncomingRequest.forwarded(Self.head(_: "/", [("X-Forwarded-Uri", "/a"), ("X-Forwarded-Host", "API.example.com:443"),
                                                                        ("X-Forwarded-Proto", "https")])).get()
        #expect(forwarded.subject?.origin?.description == "https://api.example.com")
    }

    @Test("forwarded: X-Forwarded-* read once each; the route path is the normalised path the rules read")
    func forwarded() throws {
        let request = try IncomingRequest.forwarded(Self.head(_: "/v1/authz", [("X-Forwarded-Uri", "//%61dmin//users?x=1"), ("X-Forwarded-Host", "App.Example."),
                                                                            ("X-Forwarded-Proto", "HTTPS"), ("X-Forwarded-Method", "DELETE")])).get()
        #expect(try request.routingPath().get() == "/admin/users")
        #expect(request.host?.name == "app.example" && request.scheme == "https" && request.method == "DELETE")
        #expect(request.url == "https://app.example//%61dmin//users?x=1")
        let subject = try #require(request.subject)
        #expect(subject.method == "DELETE" && subject.query?.single("x") == "1")
        #expect(try RequestPath.normalize(Substring(try #require(subject.path)), .standard).get() == "/admin/users")

        // Without forwarded headers, the call's own method, scheme and host; no target at all.
        let bare = try IncomingRequest.forwarded(Self.head()).get()
        #expect(bare.target == nil && bare.host?.name == "127.0.0.1" && bare.subject == nil && bare.url == nil)
        #expect(Self.code(bare.routingPath()) == "target_missing")
        // Envoy's appended target.
        let appended = try IncomingRequest.forwarded(Self.head(), appendedTarget: "/admin/x").get()
        #expect(try appended.routingPath().get() == "/admin/x")
    }

    @Test("refusals: repeated, unreadable or ambiguous parts of the request, each with its code")
    func refusals() throws {
        let code = { (result: Result<IncomingRequest, FrontRefusal>) in Self.code(result) }
        #expect(code(IncomingRequest.forwarded(Self.head(_: "/", [("X-Forwarded-Uri", "/a"), ("X-Forwarded-Uri", "/b")]))) == "header_repeated")
        #expect(code(IncomingRequest.forwarded(Self.head(_: "/", [("X-Forwarded-Host", "a"), ("X-Forwarded-Host", "b")]))) == "header_repeated")
        #expect(code(IncomingRequest.forwarded(Self.head(_: "/", [("Authorization", "Bearer a"), ("Authorization", "Bearer b")]))) == "header_repeated")
        #expect(code(IncomingRequest.direct(Self.head(_: "/", [("Authorization", "Bearer a"), ("Authorization", "Bearer b")]))) == "header_repeated")
        #expect(code(IncomingRequest.forwarded(Self.head(_: "/", [("X-Forwarded-Uri", "/a")]), appendedTarget: "/b")) == "target_ambiguous")
        #expect(code(IncomingRequest.forwarded(Self.head(_: "/", [("X-Forwarded-Uri", "a/b")]))) == "target_invalid")
        #expect(code(IncomingRequest.forwarded(Self.head(_: "/", [("X-Forwarded-Uri", "/a/%zz")]))) == "target_invalid")
        #expect(code(IncomingRequest.forwarded(Self.head(_: "/", [("X-Forwarded-Uri", "/../a")]))) == "target_invalid")
        for dotted in ["/a/../b", "/a/./b", "/a/%2e%2E/b", "/a/.%2e/b", "/a/..;x/b", "/a//../b"] {
            #expect(code(IncomingRequest.forwarded(Self.head(_: "/", [("X-Forwarded-Uri", dotted)]))) == "target_invalid", "\(dotted)")
            #expect(code(IncomingRequest.direct(Self.head(dotted))) == "target_invalid", "\(dotted)")
        }
        // Without X-Forwarded-Host a route table does not take the call's own Host.
        #expect(try IncomingRequest.forwarded(Self.head(), callHost: false).get().host == nil)
        #expect(code(IncomingRequest.forwarded(Self.head(_: "/", [("X-Forwarded-Host", "a:b")]))) == "host_invalid")
        #expect(code(IncomingRequest.forwarded(Self.head(_: "/", [("X-Forwarded-Method", "G ET")]))) == "method_invalid")
        #expect(code(IncomingRequest.forwarded(Self.head(_: "/", [("X-Forwarded-Proto", "gopher")]))) == "proto_invalid")
        let parameter = try? IncomingRequest.forwarded(Self.head(_: "/", [("X-Forwarded-Uri", "/admin;x/users")])).get()
        #expect(parameter.map { Self.code($0.routingPath()) } == "path_parameter")
    }

    @Test("direct: the call as received; X-Forwarded-* from the client are not believed")
    func direct() throws {
        let request = try IncomingRequest.direct(Self.head("/admin/x", [("X-Forwarded-Uri", "/public/x"), ("X-Forwarded-Host", "trusted.example")])).get()
        #expect(try request.routingPath().get() == "/admin/x" && request.host?.name == "127.0.0.1")
    }
}
