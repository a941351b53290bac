import ArgumentParser
import Foundation
import PolicyAuthoring
import PolicyCommandLine
@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules

/// `policy-run lint`: compiles policies and reports every error and warning.
struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Report every compile error and warning in policy files.",
        discussion: """
        A file named *.test.yaml is checked as a policy test file. A warning is silenced by a \
        comment '# lint: ignore=CODE' on its line or the line above. \
        Exit status: 0 when no file has errors (warnings allowed), 1 otherwise, 2 a file that \
        cannot be read (nothing is linted then).
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Argument(help: "Policy YAML files.")
    var files: [String]

    @Option(help: "Output format: text or json.")
    var format: Format = .text

    @Option(name: .customLong("policy-root"),
            help: ArgumentHelp("A directory policies may read bases and key files from (repeatable; default: each policy file's directory).", valueName: "DIR"))
    var roots: [String] = []

    func run() throws {
        // A file that cannot be read is a mistake on the command line, not a problem in a file.
        for file in files { try InputFile.checkReadable(file) }
        var all: [Diagnostic] = []
        var failed = false
        for file in files {
            do {
                if file.hasSuffix(".test.yaml") {
                    _ = try PolicyTestReader().read(file: file)
                } else {
                    all += try Policy.load(file: file, fileRoots: roots.isEmpty ? nil : FileRoots(roots)).warnings
                }
            } catch {
                all += error.items
                failed = true
            }
        }
        let sorted = all.sorted { $0.location < $1.location }
        switch format {
        case .json:
            print(JSONValue.array(sorted.map(ErrorReport.json)).prettyPrinted())
        case .text:
            for diagnostic in sorted { print(Diagnostics.rendered(diagnostic)) }
            let errors = sorted.filter { $0.severity == .error }.count
            print("\(files.count) file\(files.count == 1 ? "" : "s"): \(errors) error\(errors == 1 ? "" : "s"), \(sorted.count - errors) warning\(sorted.count - errors == 1 ? "" : "s")")
        }
        if failed { throw ExitCode(1) }
    }
}
