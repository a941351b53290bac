internal import Foundation
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `redirect_uri`: the callback arrived at the registered redirect URI — the same scheme, host,
/// port and path; only the response parameters may differ.
struct RedirectURIRule: Rule {
    static let key = "redirect_uri"
    static let summary = "the callback arrived at the redirect URI: same scheme, host, port and path"
    static let phase = RulePhase.header
    static let findingCodes: [FindingCode] = [.inputInvalid, .redirectURIMismatch]
    static let argumentShape: ArgumentShape = .string

    let expected: PolicyValue

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, let expected = compiler.stringValue(node, what: "'redirect_uri'") else { return [] }
        if case let .literal(.string(text)) = expected, Endpoint(text) == nil {
            compiler.error(.invalidValue, "'redirect_uri' must be an absolute URL with a scheme and host, found '\(text)'", at: node)
            return []
        }
        return [compiler.finish(RedirectURIRule(expected: expected), at: node.location)]
    }

    var explanation: String { "the callback's scheme, host, port and path are those of \(expected.display)" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let text = context.resolve(expected)?.stringValue, let expected = Endpoint(text) else {
            return .fail(.inputInvalid, "the redirect_uri input is not an absolute URL")
        }
        guard let components = context.callback.components, let actual = Endpoint(components) else {
            return .blocked("the callback is not a URL (see callback.response)")
        }
        guard actual == expected else {
            return .fail(.redirectURIMismatch, "the callback went to \(actual), not the redirect URI \(expected)")
        }
        return .pass(context.detail("arrived at \(expected)"))
    }

    /// The parts of a URL that identify an endpoint, normalised as browsers compare origins:
    /// scheme and host case-insensitive, default ports made explicit.
    struct Endpoint: Equatable, CustomStringConvertible {
        static func == (lhs: Endpoint, rhs: Endpoint) -> Bool {
            lhs.scheme.isExactly(rhs.scheme) && lhs.host.isExactly(rhs.host) && lhs.port == rhs.port && lhs.path.isExactly(rhs.path)
        }

        let scheme: String
        let host: String
        let port: Int
        let path: String

        init?(_ text: String) {
            guard let components = URLComponents(string: text) else { return nil }
            self.init(components)
        }

        init?(_ components: URLComponents) {
            guard let scheme = components.scheme?.lowercased(), let host = components.host?.lowercased(), !host.isEmpty else { return nil }
            guard let port = components.port ?? ["https": 443, "http": 80][scheme] else { return nil }
            self.scheme = scheme
            self.host = host
            self.port = port
            path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        }

        var description: String { "\(scheme)://\(host):\(port)\(path)" }
    }
}
