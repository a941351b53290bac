import Foundation
@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules
import Testing

/// The committed schema is the one the registry generates, and what it refuses the compiler
/// refuses too.
@Suite("Policy schema")
struct PolicySchemaTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("schema/policy.schema.json is what `policy-run schema` generates (regenerate it with that command)")
    func committedSchema() throws {
        let committed = try String(contentsOf: Self.packageRoot.appendingPathComponent("schema/policy.schema.json"), encoding: .utf8)
        #expect(committed == BuiltinRules.schema.prettyPrinted() + "\n")
    }

    @Test("every section's rules and settings are in the schema, each with a description")
    func everyKey() throws {
        guard case let .object(document) = BuiltinRules.schema, case let .object(definitions)? = document["$defs"] else {
            Issue.record("the schema has no $defs")
            return
        }
        for (name, section) in BuiltinRules.registry.sections {
            guard case let .object(properties)? = definitions["section_\(name)"]?.objectValue?["properties"] else {
                Issue.record("no schema for section \(name)")
                continue
            }
            #expect(Set(properties.names) == Set(section.keys), "section \(name)")
            for member in properties.members { #expect(member.value.objectValue?["description"]?.stringValue?.isEmpty == false, "\(name).\(member.name)") }
        }
    }

    @Test("the broken policies the schema refuses (Tests/SchemaFixtures/invalid) do not compile either")
    func refusedByBoth() throws {
        let directory = Self.packageRoot.appendingPathComponent("Tests/SchemaFixtures/invalid")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".yaml") && !$0.hasSuffix(".test.yaml") }
        #expect(files.count >= 8)
        for file in files {
            #expect(throws: PolicyDiagnostics.self, "\(file) compiles") {
                _ = try Policy.load(file: directory.appendingPathComponent(file).path)
            }
        }
    }
}
