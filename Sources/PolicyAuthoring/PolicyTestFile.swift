package import PolicyRuntime
package import PolicyJOSE

/// A `NAME.test.yaml` file (docs/policy-format.md §9): the policy it tests and its cases.
package struct PolicyTestFile: Sendable {
    /// The test file's path, as given.
    package let path: String
    /// The name under `policy:`; the policy is `NAME.yaml` beside the test file.
    package let policyName: String
    /// Where `policy:` is written, for errors about the policy itself.
    package let policyLocation: SourceLocation
    /// The cases, in file order.
    package let cases: [PolicyTestCase]

    /// The policy file the cases run against: `NAME.yaml` in the test file's directory.
    package var policyPath: String { PolicyPath.joined(PolicyPath.directory(of: path), policyName + ".yaml") }
}

/// One case: a subject, the time and inputs it is judged with, and the verdict expected.
package struct PolicyTestCase: Sendable {
    /// What the case is called in reports; unique within its file.
    package let name: String
    /// Where the case starts in its file.
    package let location: SourceLocation
    /// The evaluation time, unix seconds.
    package let now: Double
    /// The inputs, the file's `inputs` overlaid with the case's own.
    package let inputs: [String: JSONValue]
    /// The token: minted from claims, or literal; nil for a policy without a token section.
    package let token: TestToken?
    /// An HTTP request as JSON `{method, url, headers, body}`, used as given.
    package let request: [UInt8]?
    /// An authorization response URL, used as given.
    package let callback: String?
    /// A DPoP proof to mint for the request, with the token presented in its `Authorization`
    /// header; nil for none.
    package let dpop: MintedProof?
    /// The verdict the case expects.
    package let expect: Expectation
}

/// The token a case presents.
package enum TestToken: Sendable {
    /// Minted by the runner, signed (and encrypted, for `jwe` and `nested` policies) with test
    /// keys that stand in for the policy's key sources.
    case minted(MintedToken)
    /// A compact token used as given, checked with the policy's own keys.
    case literal(String)
}

/// What a case expects of the verdict.
package struct Expectation: Sendable {
    /// Whether the verdict is valid.
    package let valid: Bool
    /// The set of finding codes, when the case names them; nil means not compared.
    package let codes: Set<String>?
    /// Outputs that must be present with exactly these values; others are not compared.
    package let outputs: [String: JSONValue]?
}

/// What the runner mints a token from.
package struct MintedToken: Sendable {
    /// The claims; a claim set to `null` in the file is left out.
    package var claims: JSONObject
    /// Members over `{alg, typ, kid}`.
    package var header: JSONObject
    /// Whether one bit of the signature (or of a JWE's tag) is flipped: a forgery.
    package var corruptSignature: Bool
    /// Tokens minted first, for the policies `embedded_tokens` names, and placed in the claims
    /// at these paths (`njwt`, `registration.pairing`).
    package var embedded: [String: MintedToken]

    /// A token to mint.
    package init(claims: JSONObject, header: JSONObject = JSONObject(), corruptSignature: Bool = false, embedded: [String: MintedToken] = [:]) {
        self.claims = claims
        self.header = header
        self.corruptSignature = corruptSignature
        self.embedded = embedded
    }
}

/// A DPoP proof the runner mints for a case's request (RFC 9449 §4.2): made with a stand-in
/// client key for the request's method and URL at the case's `now`, with `ath` of the case's
/// token, which goes into `Authorization: DPoP <token>` and is bound to the key (`cnf.jkt`).
package struct MintedProof: Sendable {
    /// Members replacing the proof's claims (`htm`, `htu`, `iat`, `jti`, `ath`, `nonce`); null
    /// leaves one out.
    package var claims = JSONObject()
    /// Members replacing the proof's header (`typ`, `alg`, `jwk`); null leaves one out.
    package var header = JSONObject()
    /// Whether one bit of the proof's signature is flipped.
    package var corruptSignature = false
    /// Whether the proof is made with a second client key, not the one the token is bound to.
    package var otherKey = false
    /// The scheme the token is presented with: `DPoP`, or `Bearer` for a downgrade.
    package var scheme = "DPoP"
    /// Whether the request is judged twice, and the second verdict compared: a replayed proof.
    package var replay = false
    /// Whether the minted token gets `cnf.jkt` of the client key: unless the case's token
    /// writes `cnf` itself (`cnf: null` mints an unbound token).
    package var bindsToken = true

    /// A proof with every default.
    package init() {}
}
