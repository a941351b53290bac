import Foundation
import PolicyEngine
import PolicyJOSE
import PolicyRuntime
import Rules
import Testing

/// A policy file is untrusted, so its key URLs may not reach into the network the engine runs
/// in: plain http only to loopback, no link-local or metadata host without `allow_internal`,
/// private hosts warned about. Each diagnostic is located at the URL (or the setting) it is about.
@Suite("Key URLs in policies")
struct KeyURLPolicyTests {
    /// A token policy whose keys come from `source` (the inside of `keys: {...}`), URL on line 5.
    static func policy(_ source: String) -> String {
        "policy: p\ntoken:\n  algorithms: [ES256]\n  audience: api\n  keys: {\(source)}\n"
    }

    static func diagnostics(_ source: String) -> (warnings: [Diagnostic], errors: [Diagnostic]) {
        do {
            return (try Policy.load(text: policy(source), file: "p.yaml").warnings, [])
        } catch {
            return (error.warnings, error.errors)
        }
    }

    static let refusedHosts = [
        "https://169.254.169.254/latest/meta-data/iam", "https://169.254.10.1/keys", "https://[fe80::1]/keys", "https://[fe80::1%25eth0]/keys",
        "https://[fd00:ec2::254]/keys", "https://100.100.100.200/keys", "https://168.63.129.16/keys", "https://metadata.google.internal/keys",
        "https://METADATA.goog./keys", "https://0.0.0.0:8181/keys", "https://[::]/keys", "https://2852039166/keys", "https://0xa9.0xfe.0xa9.0xfe/keys",
        "https://[::ffff:169.254.169.254]/keys", "https://%31%36%39.254.169.254/keys",
    ]

    @Test("a link-local, metadata or unspecified host is a compile error at the URL, however it is spelled", arguments: refusedHosts)
    func refusedHost(_ url: String) {
        for source in ["jwks_uri: \"\(url)\"", "discovery: \"\(url)\""] {
            let found = Self.diagnostics(source)
            #expect(found.errors.map(\.code) == [.internalAddress], "\(source): \(found.errors.map(\.description))")
            let error = found.errors.first
            #expect(error?.location.line == 5 && error?.location.column == (source.hasPrefix("jwks_uri") ? 20 : 21), "\(String(describing: error))")
            #expect(error?.hint == "if the keys really are served there, set allow_internal: true beside it")
        }
    }

    static let privateHosts = [
        "https://10.1.2.3/keys", "https://172.16.0.1/keys", "https://172.31.255.255/keys", "https://192.168.1.1/keys", "https://100.64.0.1/keys",
        "https://[fc00::1]/keys", "https://[fd12:3456::1]/keys", "https://localhost:8181/metrics", "https://127.0.0.1/keys", "https://[::1]/keys",
    ]

    @Test("a private or loopback host over https compiles with an internal_address warning at the URL", arguments: privateHosts)
    func privateHost(_ url: String) {
        let found = Self.diagnostics("jwks_uri: \"\(url)\"")
        #expect(found.errors.isEmpty, "\(found.errors.map(\.description))")
        let warning = found.warnings.first { $0.code == .internalAddress }
        #expect(warning?.location.line == 5 && warning?.location.column == 20, "\(found.warnings.map(\.description))")
    }

    @Test("public hosts, and names that only resolve later, compile without an address diagnostic")
    func publicHosts() {
        for url in ["https://idp.example.com/jwks", "https://8.8.8.8/keys", "https://172.32.0.1/keys", "https://100.128.0.1/keys", "https://[2001:db8::1]/keys",
                    "https://169.254.example.com/keys"] {
            let found = Self.diagnostics("jwks_uri: \"\(url)\"")
            #expect(found.errors.isEmpty && !found.warnings.contains { $0.code == .internalAddress }, "\(url): \(found.warnings.map(\.description))")
        }
    }

    @Test("allow_http accepts a loopback host only; any other host is a compile error at the URL with a hint")
    func allowHTTPLoopbackOnly() throws {
        for url in ["http://127.0.0.1:8080/jwks", "http://127.9.9.9/jwks", "http://localhost:8080/jwks", "http://[::1]:8080/jwks"] {
            let found = Self.diagnostics("jwks_uri: \"\(url)\", allow_http: true")
            #expect(found.errors.isEmpty && found.warnings.map(\.code) == [.insecureSetting], "\(url): \(found.warnings.map(\.description))")
        }
        for url in ["http://example.com/jwks", "http://10.0.0.1/jwks", "http://169.254.169.254/latest", "http://0.0.0.0:8080/jwks", "http://127.0.0.1.example.com/jwks"] {
            let found = Self.diagnostics("jwks_uri: \"\(url)\", allow_http: true")
            #expect(found.errors.map(\.code) == [.insecureSetting], "\(url): \(found.errors.map(\.description))")
            #expect(found.errors.first?.location.line == 5 && found.errors.first?.location.column == 20)
            #expect(found.errors.first?.message.contains("not a loopback host") == true)
            #expect(found.errors.first?.hint == "serve the keys over https, or run the test server on 127.0.0.1")
        }
        let discovery = Self.diagnostics("discovery: \"http://example.com\", allow_http: true")
        #expect(discovery.errors.map(\.code) == [.insecureSetting])
    }

    @Test("allow_internal lets a policy reach a metadata or private host, and lint flags it instead at the setting")
    func allowInternal() throws {
        for url in ["https://169.254.169.254/keys", "https://metadata.google.internal/keys", "https://10.1.2.3/keys"] {
            let policy = try Policy.load(text: Self.policy("jwks_uri: \"\(url)\",\n    allow_internal: true"), file: "p.yaml")
            #expect(policy.warnings.map(\.code) == [.insecureSetting], "\(url): \(policy.warnings.map(\.description))")
            #expect(policy.warnings.first?.location.line == 6)
            #expect(policy.warnings.first?.message.hasPrefix("'allow_internal: true'") == true)
            #expect(policy.remoteKeySources.first?.allowInternal == true)
        }
        // It does not widen allow_http, and applies to remote sources only.
        let http = Self.diagnostics("jwks_uri: \"http://10.1.2.3/keys\", allow_http: true, allow_internal: true")
        #expect(http.errors.map(\.code) == [.insecureSetting])
        let local = Self.diagnostics("jwks_file: keys.json, allow_internal: true")
        #expect(local.errors.contains { $0.code == .conflict && $0.message.contains("'allow_internal' applies to remote key sources") })
        let wrongType = Self.diagnostics("jwks_uri: \"https://idp.example.com/jwks\", allow_internal: sure")
        #expect(wrongType.errors.map(\.code) == [.wrongType])
    }

    @Test("a private host's warning is silenced by a lint note, as other warnings are")
    func suppressed() throws {
        let text = "policy: p\ntoken:\n  algorithms: [ES256]\n  audience: api\n  # lint: ignore=internal_address (the IdP runs in this VPC)\n  keys: {jwks_uri: \"https://10.1.2.3/keys\"}\n"
        let policy = try Policy.load(text: text, file: "p.yaml")
        #expect(policy.warnings.isEmpty, "\(policy.warnings.map(\.description))")
    }
}
