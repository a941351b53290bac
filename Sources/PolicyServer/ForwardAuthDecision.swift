internal import Foundation
package import PolicyEngine

/// How a forward-auth call answers a verdict (nginx `auth_request`, Caddy `forward_auth`, Envoy
/// `ext_authz`): 200 with the outputs as headers, 401 when the token is not authentic or current
/// (RFC 6750 `invalid_token`), 403 when an authentic, current token is denied by the policy.
package struct ForwardAuthDecision {
    /// Rules whose failure means the token itself is not acceptable: 401, not 403.
    static let authenticationRules: Set<String> = [
        "token.structure", "token.decryption", "token.algorithms", "token.keys", "token.typ", "token.header", "token.crit",
        "token.claim_types", "token.issuer", "token.audience", "token.trusted_audiences", "token.authorized_party",
        "token.expires", "token.not_before", "token.issued_at", "token.max_lifetime", "request.bearer",
    ]

    /// The HTTP status: 200, 401 or 403.
    package let status: Int
    /// Headers to answer with: outputs on success, `WWW-Authenticate` on a refusal.
    package let headers: [(name: String, value: String)]

    /// - Parameters:
    ///   - usesBearer: Whether the call's own bearer token is the subject (RFC 6750 headers).
    ///   - authenticates: Whether the policy checks a token at all; a denial of a policy that
    ///     checks none (a request's path, a callback's state) is 403.
    ///   - outputHeaders: Header names for outputs, by output name; others get `X-Auth-<Name>`.
    package init(_ verdict: Verdict, usesBearer: Bool, authenticates: Bool, outputHeaders: [String: String] = [:]) {
        guard !verdict.valid else {
            status = 200
            headers = verdict.outputs.keys.sorted().map { name in (outputHeaders[name] ?? Self.headerName(name), Self.headerValue(verdict.outputs[name]!)) }
            return
        }
        let codes = Array(Set(verdict.findings.map(\.code.rawValue))).sorted().joined(separator: " ")
        let authentic = !authenticates || verdict.verified && !verdict.findings.contains { Self.authenticationRules.contains($0.rule) }
        status = authentic ? 403 : 401
        guard usesBearer else {
            headers = []
            return
        }
        // Only codes go into the header: a finding's message may echo what the token said.
        let error = authentic ? "insufficient_scope" : "invalid_token"
        headers = [("WWW-Authenticate", "Bearer error=\"\(error)\", error_description=\"\(codes)\"")]
    }

    /// `user` → `X-Auth-User`, `tenant_id` → `X-Auth-Tenant-Id`.
    static func headerName(_ output: String) -> String {
        "X-Auth-" + output.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: "-")
    }

    /// A string as it is when it is printable ASCII; anything else as its JSON text, which
    /// escapes every control character, so an output can never split a header.
    static func headerValue(_ value: JSONValue) -> String {
        if case let .string(text) = value, text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) { return text }
        return String(decoding: value.serializedBytes(), as: UTF8.self).unicodeScalars.map { $0.value < 0x80 ? String($0) : String(format: "\\u%04x", $0.value) }.joined()
    }
}
