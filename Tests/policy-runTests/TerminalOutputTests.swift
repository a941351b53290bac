import Foundation
import PolicyRuntime
import PolicyJOSE
import Testing

/// Text output is inert: a kid, iss, state or error_description holding a newline or an escape
/// sequence never reaches the terminal raw, so it cannot draw a fake VALID line.
@Suite("Terminal output")
struct TerminalOutputTests {
    static let forged = "x\n\u{1B}[32mVALID\u{1B}[0m  policy okta-id-token\r\u{202E}"

    static func base64url(_ json: String) -> String {
        Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The output carries no control character but the newlines between its own lines, and no
    /// line the input drew.
    func expectInert(_ run: DecodeCommandTests.Run, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        for text in [run.stdout, run.stderr] {
            #expect(!text.unicodeScalars.contains { InertText.needsEscape($0) && $0 != "\n" }, "\(text.debugDescription)", sourceLocation: sourceLocation)
            #expect(!text.split(separator: "\n").contains { $0.hasPrefix("VALID") || $0.hasPrefix("\u{1B}") }, "\(text)", sourceLocation: sourceLocation)
        }
    }

    @Test("check, decode and batch escape a hostile kid and iss")
    func hostileToken() throws {
        let header = #"{"alg":"ES256","kid":\#(String(decoding: JSONValue.string(Self.forged).serializedBytes(), as: UTF8.self))}"#
        let claims = #"{"iss":\#(String(decoding: JSONValue.string(Self.forged).serializedBytes(), as: UTF8.self))}"#
        let token = Self.base64url(header) + "." + Self.base64url(claims) + ".AAAA"
        let policy = "Policies/okta-id-token.yaml"
        // check never judges the claims of a token that did not verify, so the iss is not quoted.
        let check = try DecodeCommandTests.run(["check", "--policy", policy, "--var", "nonce=n", "--trace", token])
        #expect(check.status == 1 && !check.stdout.contains("VALID\n"), "\(check.stdout)")
        expectInert(check)
        let decode = try DecodeCommandTests.run(["decode", token])
        #expect(decode.stdout.contains(#""iss": "x\n\u001b[32mVALID\u001b[0m  policy okta-id-token\r\u{202E}""#), "\(decode.stdout)")
        expectInert(decode)
        let batch = try DecodeCommandTests.run(["batch", "--policy", policy, "--var", "nonce=n", "--input-format", "lines", "--output", "/dev/null", "-"],
                                               stdin: token + "\n")
        #expect(batch.stderr.contains("kids:"), "\(batch.stderr)")
        expectInert(batch)
    }

    @Test("a callback's error_description and state are escaped")
    func hostileCallback() throws {
        let url = "https://app.example.com/oauth/callback?error=access_denied&error_description=x%0A%1B%5B32mVALID&state=af0ifjsldkj%0D%0AVALID"
        let run = try DecodeCommandTests.run(["check", "--policy", "Policies/oidc-callback.yaml", "--var", "state=af0ifjsldkj", "--callback", url])
        #expect(run.status == 1, "\(run.stdout) \(run.stderr)")
        expectInert(run)
    }

    @Test("InertText escapes controls, DEL, C1, bidi overrides and line separators, and leaves other text alone")
    func escaping() {
        #expect(InertText.escaped("plain café ✓") == "plain café ✓")
        #expect(InertText.escaped("a\nb\r\tc") == #"a\nb\r\tc"#)
        #expect(InertText.escaped("\u{1B}[0m\u{7F}\u{85}\u{202E}\u{2028}\u{0}") == #"\u{001B}[0m\u{007F}\u{0085}\u{202E}\u{2028}\u{0000}"#)
    }
}
