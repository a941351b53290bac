import Foundation
@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules
import Testing

/// A policy file is untrusted input (SECURITY.md): it reads files only below its roots, only
/// policy files through `extends` and named policies, and no diagnostic shows what it was not
/// meant to (the content of other files, environment values).
@Suite("Policy file access")
final class PolicyFileAccessTests {
    /// A value no diagnostic may contain.
    static let secretValue = "s3cr3t-Value-never-printed"
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("roots-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("policies/keys"), withIntermediateDirectories: true)
        try "SECRET=\(Self.secretValue)\n".write(to: folder.appendingPathComponent("outside.yaml"), atomically: true, encoding: .utf8)
        try "SECRET=\(Self.secretValue)\n".write(to: folder.appendingPathComponent("policies/keys/dotenv.json"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("policies/escape.yaml"),
                                                   withDestinationURL: folder.appendingPathComponent("outside.yaml"))
        try FileManager.default.copyItem(at: Self.packageRoot.appendingPathComponent("Policies/keys/test-es256.jwks.json"),
                                         to: folder.appendingPathComponent("policies/keys/es256.jwks.json"))
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The diagnostics of compiling `text` as `policies/p.yaml`, with SECRET set in the environment.
    func diagnostics(_ text: String, roots: [String]? = nil) -> [Diagnostic] {
        do {
            _ = try Policy.load(text: "policy: p\n" + text, file: folder.appendingPathComponent("policies/p.yaml").path,
                                environment: ["SECRET": Self.secretValue, "HOME": "/root"], fileRoots: roots.map(FileRoots.init))
            return []
        } catch {
            return error.sorted
        }
    }

    func expectRefused(_ text: String, _ code: DiagnosticCode, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let found = diagnostics(text)
        #expect(found.contains { $0.code == code && $0.severity == .error }, "\(found.map(\.description))", sourceLocation: sourceLocation)
        #expect(!found.contains { $0.description.contains(Self.secretValue) || $0.description.contains("root:x:0") },
                "\(found.map(\.description))", sourceLocation: sourceLocation)
    }

    @Test("extends and named policies resolve only to .yaml files inside the roots: /proc, /etc, .. and symbolic links are refused unread")
    func policyReferences() {
        expectRefused("extends: /proc/self/environ\ntoken: {}\n", .fileOutsideRoots)
        expectRefused("extends: /etc/passwd\ntoken: {}\n", .fileOutsideRoots)
        expectRefused("extends: ../outside.yaml\ntoken: {}\n", .fileOutsideRoots)
        expectRefused("extends: keys/../../outside.yaml\ntoken: {}\n", .fileOutsideRoots)
        expectRefused("extends: escape\ntoken: {}\n", .fileOutsideRoots)
        expectRefused("extends: nowhere\ntoken: {}\n", .baseMissing)
        expectRefused("request:\n  bearer: {policy: /etc/passwd}\n", .fileOutsideRoots)
        expectRefused("request:\n  bearer: {policy: /proc/self/environ}\n", .fileOutsideRoots)
        expectRefused("request:\n  bearer: {policy: escape.yaml}\n", .fileOutsideRoots)
    }

    @Test("key files resolve inside the roots, and a key file's content is never echoed")
    func keyFiles() {
        expectRefused("token: {algorithms: [ES256], keys: {jwks_file: /etc/passwd}}\n", .fileOutsideRoots)
        expectRefused("token: {algorithms: [ES256], keys: {pem_file: ../outside.yaml}}\n", .fileOutsideRoots)
        expectRefused("token: {algorithms: [ES256], keys: {x5c: {trust: /proc/self/environ}}}\n", .fileOutsideRoots)
        expectRefused("token: {algorithms: [ES256], keys: {jwks_file: keys/dotenv.json}}\n", .keySource)
        #expect(diagnostics("token: {algorithms: [ES256], keys: {jwks_file: keys/es256.jwks.json}}\n").isEmpty)
    }

    @Test("roots given by the caller widen what a policy may read, and nothing else")
    func configuredRoots() {
        let outside = "token: {algorithms: [ES256], keys: {jwks_file: \(Self.packageRoot.path)/Policies/keys/test-es256.jwks.json}}\n"
        #expect(diagnostics(outside).contains { $0.code == .fileOutsideRoots })
        #expect(diagnostics(outside, roots: [folder.path + "/policies", Self.packageRoot.path + "/Policies"]).isEmpty)
        #expect(diagnostics("extends: /etc/passwd\ntoken: {}\n", roots: ["/etc"]).contains { $0.code == .fileOutsideRoots })
    }

    @Test("${env:NAME} is read only for secrets: never in URLs or paths, and never printed")
    func environmentOnlyForSecrets() {
        expectRefused("token: {algorithms: [ES256], keys: {jwks_uri: \"https://idp.example/jwks?leak=${env:SECRET}\"}}\n", .invalidValue)
        expectRefused("token: {algorithms: [ES256], keys: {discovery: \"https://${env:SECRET}.example\"}}\n", .invalidValue)
        expectRefused("token: {algorithms: [ES256], keys: {jwks_file: \"/none/${env:SECRET}\"}}\n", .invalidValue)
        expectRefused("token: {algorithms: [ES256], keys: {x5c: {trust: \"${env:SECRET}.pem\"}}}\n", .invalidValue)
        // A secret that does not decode is reported by its variable's name, not its value.
        expectRefused("token: {algorithms: [HS256], keys: {secret: \"${env:SECRET}\"}}\n", .keySource)
        expectRefused("token:\n  algorithms: [ES256]\n  keys: {jwks_file: keys/es256.jwks.json}\n  issuer: ${env:SECRET}\n", .undeclaredInput)
    }

    @Test("one-character and directory paths are clear errors, not a crash")
    func oddPaths() {
        for path in ["-", ".", "x", "a/", "/", folder.path, "", "//"] {
            let error = #expect(throws: PolicyDiagnostics.self) { try Policy.load(file: path) }
            #expect(error?.items.first?.code == .fileUnreadable, "\(path): \(error?.items.map(\.description) ?? [])")
        }
        #expect(PolicyPath.directory(of: "x") == "" && PolicyPath.directory(of: "a/") == "" && PolicyPath.directory(of: "/x") == "/")
        #expect(PolicyPath.directory(of: "a/b/c.yaml") == "a/b" && PolicyPath.directory(of: "a//b.yaml") == "a")
        #expect(PolicyPath.normalized("a/./b//../c") == "a/c" && PolicyPath.normalized("/../x") == "/x" && PolicyPath.normalized("../x") == "../x")
        #expect(PolicyPath.joined("", "x.yaml") == "x.yaml" && PolicyPath.joined("a", "/abs") == "/abs" && PolicyPath.joined("/", "x") == "/x")
    }
}
