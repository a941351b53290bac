import Foundation
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import PolicyAuthoring
import Testing

@Suite("Policy test schema")
struct PolicyTestSchemaTests {
    @Test("schema/policy-test.schema.json is what `policy-run schema --test` generates")
    func committedSchema() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let committed = try String(contentsOf: root.appendingPathComponent("schema/policy-test.schema.json"), encoding: .utf8)
        #expect(committed == PolicyTestSchema.document.prettyPrinted() + "\n")
    }

    @Test("the schema lists exactly the keys the reader accepts")
    func keys() throws {
        let properties = try #require(PolicyTestSchema.document.objectValue?["properties"]?.objectValue)
        #expect(properties.names == PolicyTestReader.fileKeys)
        let caseProperties = try #require(properties["cases"]?.objectValue?["items"]?.objectValue?["properties"]?.objectValue)
        #expect(caseProperties.names == PolicyTestReader.caseKeys)
    }
}
