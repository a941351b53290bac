@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `body`: a matcher per dotted path into the JSON body, one rule each.
struct BodyRule: Rule {
    static let key = "body"
    static let summary = "fields of the JSON body (dotted paths) match their matchers"
    static let phase = RulePhase.claims
    static let findingCodes: [FindingCode] = [.fieldMissing, .bodyNotJSON, .bodyMismatch]
    static let argumentShape: ArgumentShape = .matchers

    let path: ClaimPath
    let matcher: Matcher

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node else { return [] }
        return compiler.matcherRules(node, key: key, names: "field paths", label: "body field", subject: { $0.claimPath($1, at: $2) },
                                     id: \.description, rule: { BodyRule(path: $0, matcher: $1) })
    }

    var explanation: String { "body field \(path) \(matcher.explanation)" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        let body: JSONObject
        switch context.request.jsonBody {
        case let .object(object): body = object
        case .absent: return .fail(.fieldMissing, "the request has no body")
        case .reported: return .blocked("the body is not usable (see request.structure)")
        case let .unusable(message): return .fail(.bodyNotJSON, FindingMessage(message))
        }
        switch matcher.check(path.value(in: body), inputs: context.inputs) {
        case nil: return .pass(context.detail("body field \(path) \(matcher.explanation)"))
        case .missing: return .fail(.fieldMissing, "the body has no field \(path)")
        case let .type(message), let .value(message): return .fail(.bodyMismatch, "body field \(path): \(message)")
        }
    }
}

extension RequestSubject {
    /// The body as a JSON object, for rules that read fields.
    enum JSONBody {
        case object(JSONObject)
        case absent
        /// Not an object, and `request.structure` has already said why (a body declared JSON
        /// or a form that does not decode): rules reading fields do not say it again.
        case reported
        /// Not an object, with the reason (text that is not JSON, a JSON array).
        case unusable(String)
    }

    var jsonBody: JSONBody {
        switch body {
        case nil: return .absent
        case let .text(_, .failure(error))?:
            return problems.contains { $0.code == .bodyNotJSON } ? .reported : .unusable("the body is not JSON: \(error.message)")
        case let body?:
            guard case let .object(object)? = body.json else {
                return .unusable("the body is \(body.json?.typeName ?? "text"), not a JSON object")
            }
            return .object(object)
        }
    }
}
