import Foundation
import Testing

/// Runs the built `policy-run` binary as a user would and checks stdout, stderr and exit status.
@Suite("policy-run decode")
struct DecodeCommandTests {
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func binary() throws -> URL {
        // The test runner sits in the build products folder, next to the policy-run it depends on.
        let runner = Bundle.main.executableURL ?? Bundle.main.bundleURL
        var folder = runner.deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent("policy-run")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "policy-run near \(runner.path)"])
    }

    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], in directory: URL? = nil,
                    binary path: URL? = nil) throws -> Run {
        let process = Process()
        process.executableURL = try path ?? binary()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.currentDirectoryURL = directory ?? packageRoot
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: stdout, stderr: stderr)
    }

    @Test("decodes the bundled sample token, with dates and no claim of verification")
    func sampleToken() throws {
        let result = try Self.run(["decode", "@Policies/examples/sample-id-token.jwt"])
        #expect(result.status == 0)
        #expect(result.stdout.contains(#""iss": "https://dev-123.okta.com/oauth2/default""#))
        #expect(result.stdout.contains("\"exp\": 1795255200,  // 2026-11-21T10:00:00Z"))
        #expect(result.stdout.contains("NOT verified"))
    }

    @Test("reads standard input and prints JSON")
    func standardInputJSON() throws {
        let token = try String(contentsOf: Self.packageRoot.appendingPathComponent("Policies/examples/sample-id-token.jwt"), encoding: .utf8)
        let result = try Self.run(["decode", "-", "--format", "json"], stdin: token)
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect((object["header"] as? [String: Any])?["alg"] as? String == "RS256")
        #expect(object["verified"] as? Bool == false)
    }

    @Test("decodes JWS and JWE JSON serializations made by jwcrypto and joserfc, and refuses a malformed one")
    func jsonSerializations() throws {
        let vectors = Self.packageRoot.appendingPathComponent("Tests/PolicyEngineTests/Vectors/jose-json/vectors.json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: vectors)) as? [String: Any])
        var tokens: [String: String] = [:]
        for vector in document["vectors"] as? [[String: Any]] ?? [] {
            if let name = vector["name"] as? String, let token = vector["token"] as? String { tokens[name] = token }
        }
        let generalToken: String = try #require(tokens["jwcrypto general JWS, all: both signers known"])
        let general = try Self.run(["decode", "-"], stdin: generalToken)
        #expect(general.status == 0, "\(general.stderr)")
        #expect(general.stdout.contains(#""iss": "https://issuer.example""#))
        #expect(general.stdout.contains("JWS JSON serialization with 2 signatures (RS256 kid 'rsa-1', ES256 kid 'ec-1')"), "\(general.stdout)")
        let jweToken: String = try #require(tokens["joserfc general JWE, RSA recipient"])
        let jwe = try Self.run(["decode", "-"], stdin: jweToken)
        #expect(jwe.status == 0, "\(jwe.stderr)")
        #expect(jwe.stdout.contains("JWE JSON serialization for 2 recipients (RSA-OAEP-256 kid 'enc-rsa', ECDH-ES+A128KW kid 'enc-ec')"), "\(jwe.stdout)")
        let refusedToken: String = try #require(tokens["empty signatures"])
        let refused = try Self.run(["decode", "-"], stdin: refusedToken)
        #expect(refused.status == 2 && refused.stderr.hasPrefix("error: malformed_token:"), "\(refused.stderr)")
    }

    @Test("malformed input exits 2 with the error code on stderr", arguments: [
        ("eyJhbGciOiJub25lIn0.e30.", "alg_none"),
        ("not-a-token", "malformed_token"),
        ("eyJhbGciOiJIUzI1NiJ9.e30=.AAAA", "invalid_base64url"),
        ("eyJhbGciOiJIUzI1NiIsImFsZyI6IlJTMjU2In0.e30.AA", "json_duplicate_member"),
    ])
    func malformed(token: String, code: String) throws {
        let result = try Self.run(["decode", token])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("error: \(code):"))
        #expect(result.stdout.isEmpty)
    }

    @Test("a missing token file is a usage error that says why")
    func missingFile() throws {
        let result = try Self.run(["decode", "@/nonexistent/token.jwt"])
        #expect(result.status == 2)
        #expect(result.stderr == "error: cannot read /nonexistent/token.jwt: No such file or directory\n", "\(result.stderr)")
    }
}
