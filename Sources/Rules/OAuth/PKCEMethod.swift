@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// A PKCE code challenge method (RFC 7636 §4.2), and how a `pkce` section chooses one.
enum PKCEMethod: String, Sendable, CaseIterable {
    case s256 = "S256"
    case plain

    /// The challenge `verifier` makes under this method.
    func challenge(for verifier: String) -> String {
        switch self {
        case .s256: PKCE.s256Challenge(verifier: verifier)
        case .plain: verifier
        }
    }

    /// What a client declared as its challenge method.
    enum Declaration {
        case method(PKCEMethod)
        /// A value that names no method, with the reason.
        case invalid(String)
    }

    /// The method the client declared: the `challenge_method` value, `plain` when its input is
    /// absent (RFC 7636 §4.3).
    static func declared(_ value: PolicyValue, in context: EvaluationContext) -> Declaration {
        guard let resolved = context.resolve(value) else { return .method(.plain) }
        guard let name = resolved.stringValue else { return .invalid("the declared challenge method is \(resolved.typeName), not a string") }
        guard let method = PKCEMethod.exactly(name) else { return .invalid("'\(name)' is not a PKCE method (S256 or plain)") }
        return .method(method)
    }
}

extension RuleCompiler {
    /// The section's `methods` (default `[S256]`). Every pkce rule reads it, so problems are
    /// reported whichever rules a section holds; the compiler keeps one copy of each.
    mutating func pkceMethods() -> [PKCEMethod] {
        guard let node = setting("methods") else { return [.s256] }
        return reportedPKCEMethods(node) ?? [.s256]
    }

    /// Reads `methods`, reporting unknown names, an empty list, and `plain`.
    private mutating func reportedPKCEMethods(_ node: YAMLNode) -> [PKCEMethod]? {
        guard let names = literalStrings(node, what: "'methods'") else { return nil }
        guard !names.isEmpty else {
            error(.invalidValue, "'methods' must list at least one method", at: node, hint: "write methods: [S256]")
            return nil
        }
        var methods: [PKCEMethod] = []
        for (index, name) in names.enumerated() {
            guard let method = PKCEMethod.exactly(name) else {
                error(.invalidValue, "'\(name)' is not a PKCE method", at: node.items?[index] ?? node,
                      hint: Suggestion.didYouMean(name, among: PKCEMethod.allCases.map(\.rawValue)) ?? "use S256 (or plain)")
                return nil
            }
            methods.append(method)
        }
        if methods.contains(.plain) {
            warning(.insecureSetting, "'plain' PKCE sends the verifier itself as the challenge; anyone who sees the authorization request can redeem the code",
                    at: node, hint: "allow S256 only (RFC 7636 §7.2)")
        }
        return methods
    }
}
