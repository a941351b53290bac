import ArgumentParser
import PolicyEngine

/// `policy-run explain`: prints the compiled chain, rule by rule.
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Show the compiled chain: each rule, its order, where it came from, and what it checks."
    )

    @OptionGroup var options: PolicyFileOptions

    /// Prints one line; a policy's own text (names, descriptions, values) is escaped, since policy
    /// files are untrusted too.
    private func print(_ line: String) {
        Swift.print(InertText.escaped(line))
    }

    func run() throws {
        let policy = try options.compiledPolicy()
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
