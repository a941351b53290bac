import Foundation
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import Rules

/// A YAML policy file, loaded and compiled with an empty environment and an empty root: it
/// either compiles or yields diagnostics located in the file; nothing outside is read.
enum PolicyFuzzing {
    static let root: String = {
        let path = NSTemporaryDirectory() + "policy-fuzz-root"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    static func run(_ data: [UInt8]) {
        let file = root + "/fuzz.yaml"
        do {
            let (node, _) = try YAMLLoader().load(bytes: data, file: file)
            _ = node
        } catch {
            check(error, file: file)
            return
        }
        do {
            let policy = try PolicyCompiler(registry: BuiltinRules.registry, environment: [:], fileRoots: FileRoots([root]))
                .compile(text: String(decoding: data, as: UTF8.self), file: file)
            invariant(!policy.name.isEmpty, "a policy without a name compiled")
        } catch {
            check(error, file: file)
        }
    }

    static func check(_ diagnostics: PolicyDiagnostics, file: String) {
        invariant(diagnostics.hasErrors, "a failed compile without an error")
        for diagnostic in diagnostics.items {
            invariant(diagnostic.location.line >= 1 && diagnostic.location.column >= 1, "a diagnostic without a location")
            invariant(!InertText.escaped(diagnostic.description).contains("\n"), "a diagnostic that prints a raw newline")
        }
    }
}
