internal import Foundation
@_spi(RuleAuthoring) public import PolicyJOSE

/// What a rule sees while it compiles: typed readers that record located diagnostics, the
/// section it belongs to, and the declared inputs.
///
/// Readers return nil after recording an error, so a rule stops reading that value and the
/// compiler goes on to report every other problem in the same pass.
@_spi(RuleAuthoring) public struct RuleCompiler: Sendable {
    /// The section being compiled (`token`), and its YAML mapping for settings such as `leeway`.
    public let sectionName: String
    /// The section's YAML mapping.
    public let section: YAMLNode
    /// The policy's own section of the same name, whose settings (`leeway`, `algorithms`,
    /// `path_normalization`, ...) a fragment inside `rules:` inherits; nil outside a policy.
    let policySection: YAMLNode?
    /// For a `token` section or a fragment of one: its shared settings, compiled once before
    /// its rules (`standard` elsewhere).
    public internal(set) var tokenSettings = TokenSettings.standard
    /// The inputs the policy declares.
    public let declaredInputs: Set<String>
    /// Whether the policy has a `token` section: a request's rules can then rely on its token
    /// being judged (a DPoP proof's binding to it).
    package internal(set) var policyJudgesToken = false
    /// The policy's `inputs` declarations, which an inline section (`bearer: {token: …}`) shares.
    let inputDeclarations: YAMLNode?
    let environment: [String: String]
    var diagnostics = PolicyDiagnostics()
    private var usedInputs: [String] = []
    /// The key sources read so far, for the policy to list, resolve and prefetch.
    var keySources: [KeySource] = []
    /// Inputs a rule hands to another policy (`bearer`) rather than reads itself.
    var inputsPassedOn: Set<String> = []
    /// The compiler of the policy being compiled, for policies it names (`bearer`).
    let policyCompiler: PolicyCompiler

    init(sectionName: String, section: YAMLNode, policySection: YAMLNode? = nil, declaredInputs: Set<String>, inputDeclarations: YAMLNode? = nil,
         environment: [String: String], policyCompiler: PolicyCompiler) {
        self.sectionName = sectionName
        self.section = section
        self.policySection = policySection
        self.declaredInputs = declaredInputs
        self.inputDeclarations = inputDeclarations
        self.environment = environment
        self.policyCompiler = policyCompiler
        sectionLocation = section.location
    }

    // MARK: - Diagnostics

    /// Records an error at `node`; the policy does not compile, and every other problem is still
    /// reported in the same pass.
    ///
    /// - Parameters:
    ///   - code: The diagnostic's stable code.
    ///   - message: What is wrong, naming the key or value; never a secret's value.
    ///   - node: Where: its `file:line:column` and key path are reported.
    ///   - hint: How to fix it, when there is something to say.
    public mutating func error(_ code: DiagnosticCode, _ message: String, at node: YAMLNode, hint: String? = nil) {
        diagnostics.error(code, message, at: node, hint: hint)
    }

    /// Records a warning at `node`: the policy compiles, and `lint` shows it.
    public mutating func warning(_ code: DiagnosticCode, _ message: String, at node: YAMLNode, hint: String? = nil) {
        diagnostics.warning(code, message, at: node, hint: hint)
    }

    // MARK: - Finishing a rule

    /// Wraps a compiled rule with its id and location, and the inputs read since the last one.
    public mutating func finish(_ rule: some Rule, id suffix: String? = nil, at location: SourceLocation) -> CompiledRule {
        let key = type(of: rule).key
        let id = [sectionName, key, suffix].compactMap { $0 }.joined(separator: ".")
        defer { usedInputs = [] }
        var seen = Set<String>()
        let inputs = usedInputs.filter { seen.insert($0).inserted }
        return CompiledRule(rule: rule, id: id, location: location, phase: type(of: rule).phase, inputs: inputs)
    }

    /// Records inputs the rule uses without being skipped when they are absent (handed on to a
    /// policy it names, or read as optional): they count as used for `input_unused`.
    public mutating func passesOn(inputs: [String]) {
        inputsPassedOn.formUnion(inputs)
    }

    /// Where a rule that runs without its key being written (`expires`, `crit`, `issued_at`,
    /// ...) is reported in diagnostics, traces and verdicts: the key that opens its section
    /// (`token:`), the mapping the rule belongs to and where an author would write the key to
    /// change it; the section's first value when it has no key of its own.
    public internal(set) var sectionLocation: SourceLocation

    /// Runs `body` without keeping its diagnostics: for a rule that reads a sibling's value
    /// (e.g. `trusted_audiences` reading `audience`), whose own rule reports its problems.
    /// Inputs it reads still count for this rule.
    public mutating func quietly<T>(_ body: (inout RuleCompiler) -> T) -> T {
        let saved = diagnostics
        defer { diagnostics = saved }
        return body(&self)
    }

    // MARK: - Shapes

    /// The pairs of a mapping whose keys must all be in `allowed`; unknown keys get a hint.
    public mutating func mapping(_ node: YAMLNode, allowed: [String], what: String) -> [YAMLPair]? {
        guard let pairs = node.pairs else {
            error(.wrongType, "\(what) must be a mapping, found \(node.shapeDescription)", at: node)
            return nil
        }
        for pair in pairs where !allowed.contains(pair.name) {
            unknownKey(pair, allowed: allowed, what: what)
        }
        return pairs.filter { allowed.contains($0.name) }
    }

    mutating func unknownKey(_ pair: YAMLPair, allowed: [String], what: String) {
        let keyNode = YAMLNode(.scalar(YAMLScalar(text: pair.name, isPlain: false)), location: pair.keyLocation, path: pair.value.path)
        let hint = Suggestion.didYouMean(pair.name, among: allowed) ?? "\(what) accepts: \(allowed.sorted().joined(separator: ", "))"
        error(.unknownKey, "unknown key '\(pair.name)' in \(what)", at: keyNode, hint: hint)
    }

    /// A literal string (no input references).
    public mutating func literalString(_ node: YAMLNode, what: String) -> String? {
        guard let text = node.scalar?.string else {
            error(.wrongType, "\(what) must be a string, found \(node.shapeDescription)", at: node)
            return nil
        }
        if text.contains("${env:") {
            error(.invalidValue, "\(what) cannot read the environment: ${env:NAME} is allowed only as a 'secret'", at: node,
                  hint: "an environment value in a URL, path or message would be sent or printed; write the value itself")
            return nil
        }
        if text.contains("${") {
            error(.invalidValue, "\(what) cannot refer to inputs", at: node)
            return nil
        }
        return text
    }

    /// A literal string or list of strings.
    public mutating func literalStrings(_ node: YAMLNode, what: String) -> [String]? {
        oneOrMany(node, what: what) { $0.literalString($1, what: what) }
    }

    /// A scalar read as a one-element list, or a non-empty list whose every item reads.
    private mutating func oneOrMany<T>(_ node: YAMLNode, what: String, _ read: (inout RuleCompiler, YAMLNode) -> T?) -> [T]? {
        if node.scalar != nil { return read(&self, node).map { [$0] } }
        guard let items = node.items else {
            error(.wrongType, "\(what) must be a string or a list of strings, found \(node.shapeDescription)", at: node)
            return nil
        }
        guard !items.isEmpty else {
            error(.invalidValue, "\(what) must not be an empty list", at: node)
            return nil
        }
        let values = items.compactMap { read(&self, $0) }
        return values.count == items.count ? values : nil
    }

    /// A boolean: only `true` and `false`.
    public mutating func bool(_ node: YAMLNode, what: String) -> Bool? {
        guard case let .bool(flag)? = node.scalar?.value else {
            let hint = node.scalar.map { YAMLScalar.yaml11Booleans.contains($0.text) } == true ? "write true or false; YAML 1.2 reads '\(node.scalar!.text)' as a string" : nil
            error(.wrongType, "\(what) must be true or false, found \(node.shapeDescription)", at: node, hint: hint)
            return nil
        }
        return flag
    }

    /// A duration: integer seconds, written plain (`300`) or quoted (`'300'`, as `fmt` writes a
    /// quoted number), or `90s`, `5m`, `1h`, `1d`.
    public mutating func duration(_ node: YAMLNode, what: String) -> Int64? {
        if case let .integer(seconds)? = node.scalar?.value {
            guard seconds >= 0 else {
                error(.invalidValue, "\(what) must not be negative", at: node)
                return nil
            }
            return seconds
        }
        // A quoted number of seconds ('300', as `fmt` writes a quoted number) means what the plain number does.
        let text = node.scalar?.string ?? ""
        let unit = text.last.flatMap { $0.isASCII && !$0.isNumber ? $0 : nil }
        let digits = unit == nil ? Substring(text) : text.dropLast()
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let amount = Int64(digits) else {
            error(.wrongType, "\(what) must be a duration: seconds or a number with s, m, h or d (e.g. 300s, 5m), found \(node.shapeDescription)", at: node)
            return nil
        }
        let scale: Int64
        switch unit ?? "s" {
        case "s": scale = 1
        case "m": scale = 60
        case "h": scale = 3600
        case "d": scale = 86400
        default:
            error(.invalidValue, "\(what): unknown duration unit '\(unit ?? "s")'", at: node, hint: "use s, m, h or d")
            return nil
        }
        let (product, overflow) = amount.multipliedReportingOverflow(by: scale)
        guard !overflow, product <= 100 * 365 * 86400 else {
            error(.invalidValue, "\(what) is out of range", at: node)
            return nil
        }
        return product
    }

    // MARK: - Values with inputs

    /// Any value; strings may refer to inputs (`${name}`).
    public mutating func value(_ node: YAMLNode, what: String) -> PolicyValue? {
        if let scalar = node.scalar, case let .string(text) = scalar.value {
            return template(text, at: node, what: what)
        }
        guard let json = jsonValue(node, what: what) else { return nil }
        return .literal(json)
    }

    /// A string, or an input reference that supplies one.
    public mutating func stringValue(_ node: YAMLNode, what: String) -> PolicyValue? {
        guard let text = node.scalar?.string else {
            error(.wrongType, "\(what) must be a string, found \(node.shapeDescription)", at: node,
                  hint: node.scalar != nil ? "quote it to make it a string" : nil)
            return nil
        }
        return template(text, at: node, what: what)
    }

    /// A string or a list of strings, each of which may refer to inputs.
    public mutating func stringValues(_ node: YAMLNode, what: String) -> [PolicyValue]? {
        oneOrMany(node, what: what) { $0.stringValue($1, what: what) }
    }

    mutating func template(_ text: String, at node: YAMLNode, what: String) -> PolicyValue? {
        switch InputTemplate.parse(text) {
        case let .failure(problem):
            error(.invalidValue, "\(what): \(problem.message)", at: node)
            return nil
        case let .success(pieces):
            var parts: [PolicyValue.Part] = []
            for piece in pieces {
                switch piece {
                case let .text(text):
                    parts.append(.text(text))
                case let .reference(.environment(name)):
                    error(.undeclaredInput, "'${env:\(name)}' is allowed only inside 'keys'", at: node,
                          hint: "declare an input and pass the value with --var, or move the secret into a key source")
                    return nil
                case let .reference(.input(name)):
                    guard declaredInputs.contains(name) else {
                        let hint = Suggestion.didYouMean(name, among: declaredInputs) ?? "declare it under 'inputs'"
                        error(.undeclaredInput, "'${\(name)}' names no declared input", at: node, hint: hint)
                        return nil
                    }
                    usedInputs.append(name)
                    parts.append(.input(name))
                }
            }
            if parts.count == 1, case let .input(name) = parts[0] { return .input(name) }
            if parts.allSatisfy({ if case .text = $0 { true } else { false } }) {
                return .literal(.string(parts.map { if case let .text(t) = $0 { t } else { "" } }.joined()))
            }
            return .interpolated(parts)
        }
    }

    /// A string in which `${env:NAME}` is replaced now, at compile time: only for secrets, whose
    /// values never appear in a message.
    mutating func environmentString(_ node: YAMLNode, what: String) -> String? {
        guard let text = node.scalar?.string else {
            error(.wrongType, "\(what) must be a string, found \(node.shapeDescription)", at: node)
            return nil
        }
        switch InputTemplate.parse(text) {
        case let .failure(problem):
            error(.invalidValue, "\(what): \(problem.message)", at: node)
            return nil
        case let .success(pieces):
            var result = ""
            for piece in pieces {
                switch piece {
                case let .text(text): result += text
                case let .reference(.environment(name)):
                    guard let value = environment[name] else {
                        error(.environmentMissing, "the environment variable \(name) is not set", at: node, hint: "export \(name) before running")
                        return nil
                    }
                    result += value
                case let .reference(.input(name)):
                    error(.invalidValue, "\(what) cannot use the input '${\(name)}': keys are loaded once, at compile time", at: node,
                          hint: "use ${env:NAME} for secrets")
                    return nil
                }
            }
            return result
        }
    }

    /// The YAML value as JSON: scalars by their core-schema type, mappings as objects.
    public mutating func jsonValue(_ node: YAMLNode, what: String) -> JSONValue? {
        do {
            return try node.json(refusing: { $0.contains("${") })
        } catch {
            let bad = error.node
            if case .string = bad.scalar?.value {
                self.error(.invalidValue, "\(what): input references are not allowed inside lists or mappings", at: bad,
                           hint: "refer to a whole input instead, e.g. one_of: ${allowed}")
            } else {
                self.error(.invalidValue, "\(what): '\(bad.scalar?.text ?? "")' is not a finite number", at: bad)
            }
            return nil
        }
    }

    /// A file path relative to the policy file that wrote it.
    func resolvePath(_ path: String, from node: YAMLNode) -> String {
        PolicyPath.joined(PolicyPath.directory(of: node.location.file), path)
    }

    /// Whether the compile may read `path` for `purpose`; a refusal is reported at `node`.
    mutating func admitFile(_ path: String, for purpose: FileRoots.Purpose, at node: YAMLNode) -> Bool {
        guard let refusal = (policyCompiler.fileRoots ?? FileRoots.beside(node.location.file)).admit(path, for: purpose) else { return true }
        error(refusal.code, refusal.message, at: node, hint: refusal.hint)
        return false
    }

    /// The value of a section setting such as `leeway`, when written: in this section, or for a
    /// fragment inside `rules:`, in the policy's own section of that name. A fragment that
    /// checks a token's `keys` or a request's `path` judges it as the policy's section does.
    public func setting(_ key: String) -> YAMLNode? {
        section[key] ?? policySection?[key]
    }
}
