@_spi(RuleAuthoring) import PolicyJOSE

/// Stage 3 of a compile: the policy's declarations at the top level: its name, description,
/// evaluation mode, inputs and outputs.
struct PolicyDeclarations {
    var name: String?
    var description: String?
    var mode = EvaluationMode.collectAll
    var inputs: [InputDeclaration] = []
    var outputs: [OutputDeclaration] = []

    static func read(_ root: YAMLNode, compiler: PolicyCompiler, diagnostics: inout PolicyDiagnostics) -> PolicyDeclarations {
        var reading = Reading(root: root, compiler: compiler)
        var declarations = PolicyDeclarations()
        declarations.name = reading.policyName()
        declarations.description = root["description"].flatMap { node -> String? in
            guard let text = node.scalar?.string else {
                reading.diagnostics.error(.wrongType, "'description' must be a string, found \(node.shapeDescription)", at: node)
                return nil
            }
            return text
        }
        declarations.mode = reading.evaluationMode()
        declarations.inputs = reading.compileInputs()
        declarations.outputs = reading.compileOutputs()
        diagnostics.append(contentsOf: reading.diagnostics)
        return declarations
    }

    private struct Reading {
        let root: YAMLNode
        let compiler: PolicyCompiler
        var diagnostics = PolicyDiagnostics()

        private func makeReader(section: String, node: YAMLNode) -> RuleCompiler {
            compiler.reader(section: section, node: node, root: root, declaredInputs: [])
        }

        mutating func policyName() -> String? {
            guard let node = root["policy"] else {
                diagnostics.error(.missingKey, "the policy has no 'policy' name", at: root, hint: "add 'policy: my-policy' at the top")
                return nil
            }
            guard let name = node.scalar?.string else {
                diagnostics.error(.wrongType, "'policy' must be a name, found \(node.shapeDescription)", at: node)
                return nil
            }
            let scalars = Array(name.unicodeScalars)
            let valid = !scalars.isEmpty && scalars.enumerated().allSatisfy { index, scalar in
                let lowerOrDigit = ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
                return index == 0 ? lowerOrDigit : lowerOrDigit || scalar == "." || scalar == "_" || scalar == "-"
            }
            guard valid else {
                diagnostics.error(.invalidValue, "'\(name)' is not a valid policy name", at: node, hint: "use lowercase letters, digits, '.', '_' and '-', starting with a letter or digit")
                return nil
            }
            return name
        }

        mutating func evaluationMode() -> EvaluationMode {
            guard let node = root["mode"] else { return .collectAll }
            guard let text = node.scalar?.string, let mode = EvaluationMode(rawValue: text) else {
                diagnostics.error(.invalidValue, "'mode' must be fail_fast or collect_all, found \(node.shapeDescription)", at: node,
                                  hint: node.scalar?.string.flatMap { Suggestion.didYouMean($0, among: EvaluationMode.allCases.map(\.rawValue)) })
                return .collectAll
            }
            return mode
        }

        mutating func compileInputs() -> [InputDeclaration] {
            guard let node = root["inputs"] else { return [] }
            guard let pairs = node.pairs else {
                diagnostics.error(.wrongType, "'inputs' must map input names to their declarations, found \(node.shapeDescription)", at: node)
                return []
            }
            var inputs: [InputDeclaration] = []
            for pair in pairs {
                guard InputTemplate.isName(pair.name) else {
                    diagnostics.error(.invalidValue, "'\(pair.name)' is not a valid input name", at: pair.value, hint: "use letters, digits, '_' and '-'")
                    continue
                }
                var reader = makeReader(section: "inputs", node: node)
                var defaultValue: JSONValue?
                var required: Bool?
                var description: String?
                if pair.value.scalar?.value == .null {
                    // `name:` with nothing after it declares a required input.
                } else if let fields = reader.mapping(pair.value, allowed: ["default", "required", "description"], what: "an input declaration") {
                    for field in fields {
                        switch field.name {
                        case "default": defaultValue = reader.jsonValue(field.value, what: "an input default")
                        case "required": required = reader.bool(field.value, what: "'required'")
                        default: description = reader.literalString(field.value, what: "'description'")
                        }
                    }
                }
                diagnostics.append(contentsOf: reader.diagnostics)
                if required == true, defaultValue != nil {
                    diagnostics.error(.conflict, "input '\(pair.name)' is required and also has a default", at: pair.value, hint: "drop one of the two")
                }
                inputs.append(InputDeclaration(name: pair.name, defaultValue: defaultValue, required: required ?? (defaultValue == nil),
                                               description: description, location: pair.keyLocation))
            }
            return inputs
        }

        mutating func compileOutputs() -> [OutputDeclaration] {
            guard let node = root["outputs"] else { return [] }
            guard let pairs = node.pairs else {
                diagnostics.error(.wrongType, "'outputs' must map output names to claim paths, found \(node.shapeDescription)", at: node)
                return []
            }
            var outputs: [OutputDeclaration] = []
            for pair in pairs {
                guard let text = pair.value.scalar?.string else {
                    diagnostics.error(.wrongType, "output '\(pair.name)' must be a path such as claims.sub, found \(pair.value.shapeDescription)", at: pair.value)
                    continue
                }
                let source: OutputDeclaration.Source?
                if text.hasPrefix("claims.") || text.hasPrefix("claims[") {
                    source = ClaimPath(parsing: String(text.dropFirst(text.hasPrefix("claims.") ? 7 : 6))).map { .claim($0) }
                } else if text.hasPrefix("header.") {
                    source = ClaimPath(parsing: String(text.dropFirst(7))).map { .header($0) }
                } else {
                    source = nil
                }
                guard let source else {
                    diagnostics.error(.invalidValue, "output '\(pair.name)': '\(text)' is not a claim path", at: pair.value,
                                      hint: "write claims.NAME, claims[\"https://...\"] or header.NAME")
                    continue
                }
                outputs.append(OutputDeclaration(name: pair.name, source: source, location: pair.value.location))
            }
            return outputs
        }
    }
}
