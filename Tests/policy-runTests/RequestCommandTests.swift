import Foundation
import Testing

/// `check` on callbacks and PKCE values, and `pkce`, run as a user would.
@Suite("policy-run check for callbacks and PKCE, and pkce")
struct RequestCommandTests {
    static let callback = ["check", "--policy", "Policies/oidc-callback.yaml", "--var", "state=af0ifjsldkj"]

    @Test("a good callback is valid and prints its code; access_denied is a callback_error with its description")
    func callbacks() throws {
        let good = try DecodeCommandTests.run(Self.callback + ["--callback", "@Policies/examples/callback-success.url"])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdout == "VALID  policy oidc-callback\n  output code = \"SplxlOBeZQQYbYS6WxSbIA\"\n  output state = \"af0ifjsldkj\"\n")
        let denied = try DecodeCommandTests.run(Self.callback + ["--callback", "@Policies/examples/callback-denied.url"])
        print("policy-run check --policy Policies/oidc-callback.yaml --var state=af0ifjsldkj --callback @Policies/examples/callback-denied.url\n\(denied.stdout)")
        #expect(denied.status == 1)
        #expect(denied.stdout.contains("callback_error  callback.response: the authorization server answered 'access_denied': The user denied the request"))
        let missing = try DecodeCommandTests.run(Self.callback)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("the policy checks a callback, and none was given"))
    }

    @Test("pkce prints a pair that pkce-s256 accepts; --length is bounded")
    func pkce() throws {
        let pair = try DecodeCommandTests.run(["pkce", "--length", "96"])
        #expect(pair.status == 0)
        let lines = pair.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3 && lines[0].hasPrefix("code_verifier=") && lines[0].count == 14 + 128)
        #expect(lines[2] == "code_challenge_method=S256")
        let check = try DecodeCommandTests.run(["check", "--policy", "Policies/pkce-s256.yaml"] + lines.flatMap { ["--var", $0] })
        #expect(check.status == 0, "\(check.stdout)")
        #expect(check.stdout == "VALID  policy pkce-s256\n")
        let other = try DecodeCommandTests.run(["pkce"])
        #expect(other.stdout != pair.stdout)
        let tooShort = try DecodeCommandTests.run(["pkce", "--length", "31"])
        #expect(tooShort.status == 2)
        let plain = try DecodeCommandTests.run(["check", "--policy", "Policies/pkce-s256.yaml", "--var", lines[0], "--var", lines[1]])
        #expect(plain.status == 1)
        #expect(plain.stdout.contains("pkce_method_not_allowed"))
    }

    @Test("encrypt then check the Authentication Hub example: valid; the plaintext never appears; the raw request fails")
    func authHubRoundTrip() throws {
        let nonce = ["--var", "server_nonce=Qm9uam91cg"]
        let encrypt = try DecodeCommandTests.run(["encrypt", "--policy", "Policies/authhub-authenticate.yaml"] + nonce + ["Policies/examples/authhub-authenticate.request.json"])
        #expect(encrypt.status == 0, "\(encrypt.stderr)")
        #expect(!encrypt.stdout.contains("correct horse") && !encrypt.stdout.contains("MEUCIQDq3"))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("authenticate-\(UUID().uuidString).json")
        try encrypt.stdout.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let check = ["check", "--policy", "Policies/authhub-authenticate.yaml"] + nonce + ["--now", "2026-11-21T09:30:00Z", "--request"]
        let valid = try DecodeCommandTests.run(check + [file.path])
        print("policy-run encrypt … | policy-run check --request:\n\(valid.stdout)")
        #expect(valid.status == 0, "\(valid.stdout)\(valid.stderr)")
        #expect(valid.stdout.hasPrefix("VALID  policy authhub-authenticate, bearer token verified"))
        let otherNonce = try DecodeCommandTests.run(["check", "--policy", "Policies/authhub-authenticate.yaml", "--var", "server_nonce=other",
                                                     "--now", "2026-11-21T09:30:00Z", "--request", file.path])
        #expect(otherNonce.status == 1 && otherNonce.stdout.contains("nonce_mismatch"))

        // The same fields as flattened JWE JSON serializations (RFC 7516 §7.2.2) pass the same policy.
        let flattened = try DecodeCommandTests.run(["encrypt", "--policy", "Policies/authhub-authenticate.yaml", "--serialization", "flattened"] + nonce
                                                   + ["Policies/examples/authhub-authenticate.request.json"])
        #expect(flattened.status == 0, "\(flattened.stderr)")
        #expect(flattened.stdout.contains("ciphertext") && flattened.stdout.contains("protected") && !flattened.stdout.contains("correct horse"),
                "\(flattened.stdout)")
        let flattenedFile = FileManager.default.temporaryDirectory.appendingPathComponent("authenticate-flat-\(UUID().uuidString).json")
        try flattened.stdout.write(to: flattenedFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: flattenedFile) }
        let flattenedCheck = try DecodeCommandTests.run(check + [flattenedFile.path])
        #expect(flattenedCheck.status == 0, "\(flattenedCheck.stdout)\(flattenedCheck.stderr)")

        let raw = try DecodeCommandTests.run(check + ["Policies/examples/authhub-authenticate.request.json"])
        #expect(raw.status == 1 && raw.stdout.contains("field_not_encrypted"))
        #expect(!raw.stdout.contains("correct horse"))
        let noNonce = try DecodeCommandTests.run(["encrypt", "--policy", "Policies/authhub-authenticate.yaml", "Policies/examples/authhub-authenticate.request.json"])
        #expect(noNonce.status == 2 && noNonce.stderr.contains("server_nonce"))
    }

    @Test("check --request reads standard input; a request policy refuses a missing request")
    func requestFromStandardInput() throws {
        let request = try String(contentsOfFile: DecodeCommandTests.packageRoot.appendingPathComponent("Policies/examples/oidc-authorize-request.request.json").path, encoding: .utf8)
        let run = try DecodeCommandTests.run(["check", "--policy", "Policies/oidc-authorize-request.yaml", "--request", "-"], stdin: request)
        #expect(run.status == 0, "\(run.stdout)")
        let missing = try DecodeCommandTests.run(["check", "--policy", "Policies/oidc-authorize-request.yaml"])
        #expect(missing.status == 2 && missing.stderr.contains("checks a request"))
        let garbage = try DecodeCommandTests.run(["check", "--policy", "Policies/oidc-authorize-request.yaml", "--request", "-"], stdin: "{\"method\": ")
        #expect(garbage.status == 1 && garbage.stdout.contains("request_malformed"))
    }
}
