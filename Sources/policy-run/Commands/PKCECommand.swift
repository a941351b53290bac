import ArgumentParser
import PolicyRuntime
import PolicyJOSE

/// `policy-run pkce`: prints a fresh PKCE pair, for testing clients and PKCE policies.
struct PKCECommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pkce",
        abstract: "Print a fresh code verifier and its S256 challenge (RFC 7636).",
        discussion: """
        The verifier is --length bytes from OpenSSL's secure random generator, base64url-encoded \
        (32 bytes make the 43-character verifier RFC 7636 §4.1 recommends). The output lines are \
        NAME=VALUE, ready for --var.
        """
    )

    @Option(help: "Random bytes in the verifier, 32 to 96 (43 to 128 characters).")
    var length = 32

    func validate() throws {
        guard (32...96).contains(length) else {
            throw ValidationError("--length must be from 32 to 96 bytes (a verifier of 43 to 128 characters), got \(length)")
        }
    }

    func run() throws {
        let verifier = PKCE.randomVerifier(byteCount: length)
        print("code_verifier=\(verifier)")
        print("code_challenge=\(PKCE.s256Challenge(verifier: verifier))")
        print("code_challenge_method=S256")
    }
}
