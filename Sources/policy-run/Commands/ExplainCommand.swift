import ArgumentParser
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `policy-run explain`: prints the compiled chain, rule by rule.
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Show the compiled chain: each rule, its order, where it came from, and what it checks."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @OptionGroup var options: PolicyFileOptions

    @Option(help: "Output format: text or json.")
    var format: Format = .text

    /// Prints one line; a policy's own text (names, descriptions, values) is escaped, since policy
    /// files are untrusted too.
    private func print(_ line: String) {
        Swift.print(InertText.escaped(line))
    }

    func run() throws {
        let policy = try options.compiledPolicy()
        if format == .json {
            Swift.print(Self.json(policy).prettyPrinted())
            return
        }
        print("policy \(policy.name) (\(policy.mode.rawValue))\(policy.description.map { ": \($0)" } ?? "")")
        if policy.files.count > 1 { print("compiled from \(policy.files.joined(separator: " ← "))") }
        for input in policy.inputs {
            let detail = input.defaultValue.map { "default \(String(decoding: $0.serializedBytes(), as: UTF8.self))" } ?? (input.required ? "required" : "optional")
            print("input \(input.name): \(detail)\(input.description.map { " — \($0)" } ?? "")")
        }
        if let decryption = policy.envelope.decryption {
            print("0. token.decryption [format \(policy.envelope.format.rawValue)] \(decryption.location)")
            print("     before any rule runs, decrypts the JWE (alg \(decryption.keyAlgorithms.map(\.rawValue).joined(separator: ", ")); "
                  + "enc \(decryption.contentEncryptions.map(\.rawValue).joined(separator: ", "))) with a key from \(decryption.keys.description)"
                  + (policy.envelope.format == .nested ? ", then reads the signed token inside" : "; its claims are the plaintext"))
        }
        var counter = 0
        lines(policy.root, depth: 0, counter: &counter).forEach(print)
        for output in policy.outputs {
            print("output \(output.name) ← \(output.source)  (\(output.location))")
        }
    }

    /// The compiled chain as JSON: `{policy, mode, description, files, inputs, decryption, chain, outputs}`,
    /// each rule `{rule, phase, at, checks}` and each combinator `{kind, id, message, at, children}`.
    static func json(_ policy: Policy) -> JSONValue {
        func string(_ text: String?) -> JSONValue { text.map { .string($0) } ?? .null }
        func describe(_ node: ChainNode) -> JSONValue {
            switch node {
            case let .rule(rule):
                return .object(JSONObject(["rule": .string(rule.id), "phase": .string("\(rule.phase)"), "at": .string(rule.location.description),
                                           "checks": .string(rule.rule.explanation)]))
            case let .all(children, composite), let .any(children, composite):
                return combinator(composite, children.map(describe))
            case let .not(child, composite):
                return combinator(composite, [describe(child)])
            case let .when(condition, then, composite):
                return combinator(composite, [describe(condition), describe(then)])
            }
        }
        func combinator(_ composite: ChainNode.Composite, _ children: [JSONValue]) -> JSONValue {
            .object(JSONObject(["kind": .string(composite.kind), "id": string(composite.id), "message": string(composite.message),
                                "at": .string(composite.location.description), "children": .array(children)]))
        }
        let decryption: JSONValue = policy.envelope.decryption.map { decryption in
            .object(JSONObject(["format": .string(policy.envelope.format.rawValue), "alg": .array(decryption.keyAlgorithms.map { .string($0.rawValue) }),
                                "enc": .array(decryption.contentEncryptions.map { .string($0.rawValue) }), "keys": .string(decryption.keys.description),
                                "at": .string(decryption.location.description)]))
        } ?? .null
        let chain: [JSONValue] = if case let .all(children, composite) = policy.root, composite.kind == "policy" { children.map(describe) } else { [describe(policy.root)] }
        return .object(JSONObject([
            "policy": .string(policy.name), "mode": .string(policy.mode.rawValue), "description": string(policy.description),
            "files": .array(policy.files.map { .string($0) }),
            "inputs": .array(policy.inputs.map { input in
                .object(JSONObject(["name": .string(input.name), "required": .bool(input.required), "default": input.defaultValue ?? .null,
                                    "description": string(input.description)]))
            }),
            "decryption": decryption,
            "chain": .array(chain),
            "outputs": .array(policy.outputs.map { .object(JSONObject(["name": .string($0.name), "from": .string("\($0.source)"), "at": .string($0.location.description)])) }),
        ]))
    }

    private func lines(_ node: ChainNode, depth: Int, counter: inout Int) -> [String] {
        let indent = String(repeating: "  ", count: depth)
        switch node {
        case let .rule(rule):
            counter += 1
            return ["\(indent)\(counter). \(rule.id) [\(rule.phase)] \(rule.location)", "\(indent)     \(rule.rule.explanation)"]
        case let .all(children, composite) where composite.kind == "policy":
            return children.flatMap { lines($0, depth: depth, counter: &counter) }
        case let .all(children, composite), let .any(children, composite):
            let header = "\(indent)\(composite.kind)\(composite.id.map { " '\($0)'" } ?? "") (\(composite.location))\(composite.message.map { " — message: \($0)" } ?? "")"
            return [header] + children.flatMap { lines($0, depth: depth + 1, counter: &counter) }
        case let .not(child, composite):
            return ["\(indent)not (\(composite.location))"] + lines(child, depth: depth + 1, counter: &counter)
        case let .when(condition, then, composite):
            return ["\(indent)when (\(composite.location))"] + lines(condition, depth: depth + 1, counter: &counter)
                + ["\(indent)then"] + lines(then, depth: depth + 1, counter: &counter)
        }
    }
}
