import ArgumentParser
import Foundation
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import PolicyAuthoring
import Rules

/// `policy-run schema`: prints the JSON Schema of policies, or of policy test files.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema of policy files (or, with --test, of policy test files).",
        discussion: """
        The schema is generated from the rules this build compiles, so it is never out of step \
        with the compiler. schema/ in the repository holds the output for editors: add \
        '# yaml-language-server: $schema=../schema/policy.schema.json' to a policy. \
        Exit status: 0.
        """
    )

    @Flag(help: "Print the schema of NAME.test.yaml files instead.")
    var test = false

    func run() throws {
        let document = test ? PolicyTestSchema.document : BuiltinRules.schema
        print(document.prettyPrinted())
    }
}
