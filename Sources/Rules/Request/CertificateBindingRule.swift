@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import PolicyCrypto

/// `certificate_binding` (RFC 8705 §3): the access token is bound to the client certificate the
/// TLS-terminating proxy verified: its `cnf.x5t#S256` is the SHA-256 thumbprint of the
/// certificate the proxy forwards in the named header. A stolen token is useless without the
/// certificate's private key.
///
/// Runs with the claims, after the token's signature. The header is the client's to send unless
/// the proxy sets it on every request (docs/serve.md shows the lines for nginx and Envoy).
struct CertificateBindingRule: Rule {
    static let key = "certificate_binding"
    static let summary = "the access token is bound (cnf.x5t#S256) to the client certificate the proxy forwards (RFC 8705)"
    static let phase = RulePhase.claims
    static let failureMeaning = RuleFailureMeaning.notAuthenticated
    static let findingCodes: [FindingCode] = [.clientCertificateMissing, .clientCertificateMalformed, .certificateBindingMissing, .certificateBindingMismatch]
    static let argumentShape: ArgumentShape = .mapping([
        ("header", .string, "the request header the proxy forwards the verified client certificate in"),
        ("format", .oneOf(ClientCertificate.Format.allCases.map(\.rawValue)), "pem (PEM, plain or URL-escaped: nginx $ssl_client_escaped_cert; default) or xfcc (Envoy x-forwarded-client-cert)"),
    ], required: ["header"])

    let header: String
    let format: ClientCertificate.Format

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, compiler.mapping(node, allowed: ["header", "format"], what: "'certificate_binding'") != nil else { return [] }
        guard let headerNode = node["header"] else {
            compiler.error(.missingKey, "'certificate_binding' needs 'header': the header the proxy forwards the client certificate in", at: node,
                           hint: "nginx: proxy_set_header X-Client-Cert $ssl_client_escaped_cert; then header: X-Client-Cert")
            return []
        }
        guard let header = compiler.literalString(headerNode, what: "'header'") else { return [] }
        guard HTTPToken.isToken(header) else {
            compiler.error(.invalidValue, "'\(header)' is not a header name", at: headerNode)
            return []
        }
        var format = ClientCertificate.Format.pem
        if let formatNode = node["format"], let text = compiler.literalString(formatNode, what: "'format'") {
            guard let known = ClientCertificate.Format(rawValue: text) else {
                compiler.error(.invalidValue, "'format' is pem or xfcc, found '\(text)'", at: formatNode)
                return []
            }
            format = known
        }
        guard compiler.policyJudgesToken else {
            compiler.error(.conflict, "'certificate_binding' binds the policy's token to the client certificate, and the policy has no token section", at: node,
                           hint: "add a token section for the access token")
            return []
        }
        return [compiler.finish(CertificateBindingRule(header: header, format: format), at: node.location)]
    }

    var explanation: String { "the token's cnf.x5t#S256 is the thumbprint of the client certificate in \(header) (\(format.rawValue))" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let token = context.token else { return .blocked("no access token was judged") }
        let values = context.request.header(header)
        guard let value = values.first else {
            return .fail(.clientCertificateMissing, "the request has no \(header) header: the token is bound to a client certificate, and the proxy forwards none")
        }
        guard values.count == 1 else {
            return .fail(.clientCertificateMalformed, "the request has \(values.count) \(header) headers; the proxy must set exactly one")
        }
        let thumbprint: String
        switch ClientCertificate.thumbprint(value, format: format) {
        case let .success(found): thumbprint = found
        case let .failure(problem): return .fail(.clientCertificateMalformed, "the \(header) header does not hold the client certificate: \(problem.reason)")
        }
        guard case let .string(bound)? = token.claims["cnf"]?.objectValue?["x5t#S256"] else {
            return .fail(.certificateBindingMissing, "the access token names no certificate it is bound to (cnf.x5t#S256)")
        }
        guard ConstantTime.equals(bound, thumbprint) else {
            return .fail(.certificateBindingMismatch, "the access token is bound to another certificate: its cnf.x5t#S256 is not the client certificate's thumbprint")
        }
        return .pass(context.detail("cnf.x5t#S256 \(bound) is the client certificate's thumbprint"))
    }
}
