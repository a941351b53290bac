@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

extension RuleCompiler {
    /// Compiles a mapping from names to matchers (`claims`, `header`, `headers`, `query`,
    /// `body`) into one rule per entry, finished as it is read so each rule keeps its own inputs.
    ///
    /// `subject` reads a name (a claim path, a header name), returning nil after reporting a bad
    /// one; `id` names the rule within its key; `rule` builds it.
    mutating func matcherRules<Subject>(
        _ node: YAMLNode, key: String, names: String, label: String,
        subject: (inout RuleCompiler, String, YAMLNode) -> Subject?, id: (Subject) -> String, rule: (Subject, Matcher) -> any Rule
    ) -> [CompiledRule] {
        guard let pairs = node.pairs else {
            error(.wrongType, "'\(key)' must map \(names) to matchers, found \(node.shapeDescription)", at: node)
            return []
        }
        return pairs.compactMap { pair in
            let keyNode = YAMLNode(.scalar(YAMLScalar(text: pair.name, isPlain: false)), location: pair.keyLocation, path: pair.value.path)
            guard let name = subject(&self, pair.name, keyNode), let matcher = matcher(pair.value, what: "\(label) '\(pair.name)'") else { return nil }
            return finish(rule(name, matcher), id: id(name), at: pair.keyLocation)
        }
    }

    /// Compiles a matcher: a scalar means `equals`; a mapping holds operators.
    package mutating func matcher(_ node: YAMLNode, what: String) -> Matcher? {
        guard let pairs = node.pairs else {
            if node.items != nil {
                error(.wrongType, "\(what): a list is not a matcher", at: node, hint: "write {one_of: [...]} or {contains_all: [...]}")
                return nil
            }
            return value(node, what: what).map { Matcher(operators: [.equals($0)]) }
        }
        guard !pairs.isEmpty else {
            error(.invalidValue, "\(what): an empty matcher checks nothing", at: node, hint: "use {exists: true} to require presence")
            return nil
        }
        var operators: [Matcher.Operator] = []
        var failed = false
        for pair in pairs {
            guard Matcher.operatorNames.contains(pair.name) else {
                let keyNode = YAMLNode(.scalar(YAMLScalar(text: pair.name, isPlain: false)), location: pair.keyLocation, path: pair.value.path)
                error(.unknownKey, "unknown matcher '\(pair.name)' in \(what)", at: keyNode,
                      hint: Suggestion.didYouMean(pair.name, among: Matcher.operatorNames))
                failed = true
                continue
            }
            guard let op = compileOperator(pair.name, pair.value, what: what) else {
                failed = true
                continue
            }
            operators.append(op)
        }
        guard !failed else { return nil }
        let matcher = Matcher(operators: operators)
        if let contradiction = matcher.contradiction {
            warning(.neverPasses, "\(what): \(contradiction)", at: node, hint: "a rule that cannot pass rejects every subject; fix the operators")
        }
        return matcher
    }

    private mutating func compileOperator(_ name: String, _ node: YAMLNode, what: String) -> Matcher.Operator? {
        let label = "\(what): '\(name)'"
        switch name {
        case "equals": return value(node, what: label).map { .equals($0) }
        case "not_equals": return value(node, what: label).map { .notEquals($0) }
        case "contains": return value(node, what: label).map { .contains($0) }
        case "prefix": return stringValue(node, what: label).map { .prefix($0) }
        case "suffix": return stringValue(node, what: label).map { .suffix($0) }
        case "one_of", "not_one_of", "contains_all", "contains_any":
            guard let operand = listOperand(node, what: label) else { return nil }
            switch name {
            case "one_of": return .oneOf(operand)
            case "not_one_of": return .notOneOf(operand)
            case "contains_all": return .containsAll(operand)
            default: return .containsAny(operand)
            }
        case "matches":
            guard let source = literalString(node, what: label) else { return nil }
            switch CompiledPattern.compile(source) {
            case let .success(pattern):
                return .matches(pattern)
            case let .failure(refusal):
                error(.invalidPattern, "\(label): '\(InertText.escaped(source))' is not an RE2 pattern: \(refusal.message)", at: node,
                      hint: "patterns run on RE2, in time linear in the value: RE2 syntax, without backreferences (\\1) or lookaround ((?=, (?!, (?<=); the whole value must match")
                return nil
            }
        case "exists":
            return bool(node, what: label).map { .exists($0) }
        case "type":
            // `type: null` is written plain, so YAML reads it as null rather than the string.
            let typeName = node.scalar?.value == .null ? "null" : literalString(node, what: label)
            guard let type = typeName else { return nil }
            guard Matcher.typeNames.contains(type) else {
                error(.invalidValue, "\(label): unknown type '\(type)'", at: node,
                      hint: Suggestion.didYouMean(type, among: Matcher.typeNames) ?? "use one of \(Matcher.typeNames.joined(separator: ", "))")
                return nil
            }
            return .type(type)
        case "min", "max":
            let number: Double
            switch node.scalar?.value {
            case let .integer(value)?: number = Double(value)
            case let .number(value)? where value.isFinite: number = value
            default:
                error(.wrongType, "\(label) must be a number, found \(node.shapeDescription)", at: node)
                return nil
            }
            return name == "min" ? .min(number) : .max(number)
        default:
            guard case let .integer(length)? = node.scalar?.value, length >= 0, length <= Int64(Int32.max) else {
                error(.wrongType, "\(label) must be a non-negative integer, found \(node.shapeDescription)", at: node)
                return nil
            }
            return name == "min_length" ? .minLength(Int(length)) : .maxLength(Int(length))
        }
    }

    /// A list operand: a literal list, or one whole input that supplies the list.
    private mutating func listOperand(_ node: YAMLNode, what: String) -> PolicyValue? {
        if node.items != nil { return jsonValue(node, what: what).map { .literal($0) } }
        if let text = node.scalar?.string, text.hasPrefix("${"), text.hasSuffix("}") { return stringValue(node, what: what) }
        error(.wrongType, "\(what) must be a list, found \(node.shapeDescription)", at: node)
        return nil
    }
}
