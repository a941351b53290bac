import PolicyEngine

/// `body`: a matcher per dotted path into the JSON body, one rule each.
struct BodyRule: Rule {
    static let key = "body"
    static let summary = "fields of the JSON body (dotted paths) match their matchers"
    static let phase = RulePhase.claims

    let path: ClaimPath
    let matcher: Matcher

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node else { return [] }
        guard let pairs = node.pairs else {
            compiler.error(.wrongType, "'body' must map field paths to matchers, found \(node.shapeDescription)", at: node)
            return []
        }
        return pairs.compactMap { pair in
            let keyNode = YAMLNode(.scalar(YAMLScalar(text: pair.name, isPlain: false)), location: pair.keyLocation, path: pair.value.path)
            guard let path = compiler.claimPath(pair.name, at: keyNode),
                  let matcher = compiler.matcher(pair.value, what: "body field '\(pair.name)'") else { return nil }
            return compiler.finish(BodyRule(path: path, matcher: matcher), id: path.description, at: pair.keyLocation)
        }
    }

    var explanation: String { "body field \(path) \(matcher.explanation)" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        let body: JSONObject
        switch context.request.jsonBody {
        case let .object(object): body = object
        case let .unusable(code, _) where context.request.problems.contains(where: { $0.code == code }):
            return .blocked("the body is not usable (see request.structure)")
        case let .unusable(code, message): return .fail(code, message)
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
        /// Why there is no object: the finding code and message.
        case unusable(FindingCode, String)
    }

    var jsonBody: JSONBody {
        switch body {
        case nil: return .unusable(.fieldMissing, "the request has no body")
        case let .text(_, .failure(error))?: return .unusable(.bodyNotJSON, "the body is not JSON: \(error.message)")
        case let body?:
            guard case let .object(object)? = body.json else {
                return .unusable(.bodyNotJSON, "the body is \(body.json?.typeName ?? "text"), not a JSON object")
            }
            return .object(object)
        }
    }
}
