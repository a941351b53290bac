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
}
