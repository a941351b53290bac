import PolicyEngine
import PolicyJOSE
import PolicyRuntime
import Rules
import Testing

/// Lint that knows the domain, silenced per line; and a duplicate key no longer hides the rest.
@Suite("Lint")
struct LintTests {
    static func diagnostics(_ text: String) -> [Diagnostic] {
        do {
            return try Policy.load(text: text, file: "p.yaml").warnings.sorted { $0.location < $1.location }
        } catch {
            return error.sorted
        }
    }

    static let base = """
    policy: p
    token:
      algorithms: [ES256]
      keys: {jwks_uri: https://idp.example/jwks}
      issuer: https://idp.example
      audience: api

    """

    @Test("a clean policy has no warning; each domain problem has its code at its line")
    func codes() {
        #expect(Self.diagnostics(Self.base).isEmpty)
        let warned = Self.diagnostics(Self.base + """
          leeway: 1h
          claims:
            email_verified: true
            level: {min: 3, max: 2, type: integer}
        inputs:
          unused: {default: x}
        """)
        #expect(warned.map { "\($0.location.line) \($0.code.rawValue)" } == ["7 long_leeway", "9 email_unverified", "10 never_passes", "12 input_unused"],
                "\(warned)")
        #expect(warned.allSatisfy { $0.severity == .warning && $0.hint != nil })
    }

    @Test("'# lint: ignore=CODE' on the line or the line above silences that code only")
    func silencing() {
        let text = """
        policy: p
        token:   # lint: ignore=audience_missing (a discovery document names no audience)
          algorithms: [ES256]
          keys: {jwks_uri: https://cdn.example.net/jwks}   # lint: ignore=keys_off_issuer_host,long_leeway
          issuer: https://idp.example
          leeway: 10m   # lint: ignore=keys_off_issuer_host
        """
        #expect(Self.diagnostics(text).map(\.code) == [.longLeeway])
        // A policy that does not compile still keeps its silenced warnings silent.
        let failing = text + "\n  subject: {exists: maybe}\n"
        #expect(Self.diagnostics(failing).map(\.code) == [.longLeeway, .wrongType])
    }

    @Test("duplicate keys are reported with every other problem of the file, not instead of them")
    func duplicateKeys() {
        let found = Self.diagnostics(Self.base + """
          leeway: soon
          issuer: https://other.example
          audience: web
        """)
        #expect(found.map { "\($0.location.line):\($0.location.column) \($0.code.rawValue)" } == ["7:11 wrong_type", "8:3 duplicate_key", "9:3 duplicate_key"],
                "\(found)")
        // In a flow mapping the later key cannot be located and renamed: the load stops there, still with a clear error.
        let flow = Self.diagnostics("policy: p\ntoken: {algorithms: [ES256], algorithms: [RS256]}\n")
        #expect(flow.map(\.code) == [.duplicateKey])
    }
}
