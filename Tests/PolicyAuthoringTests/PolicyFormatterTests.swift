import Foundation
import PolicyAuthoring
import PolicyRuntime
import PolicyJOSE
import Testing

@Suite("Policy formatter")
struct PolicyFormatterTests {
    static let policies = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Policies")

    @Test("every file in Policies/ is in the canonical layout, and formatting it again changes nothing")
    func policiesAreCanonical() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.policies.path).filter { $0.hasSuffix(".yaml") }
        #expect(files.count >= 20)
        for file in files {
            let text = try String(contentsOf: Self.policies.appendingPathComponent(file), encoding: .utf8)
            let once = try PolicyFormatter().format(text, file: file)
            #expect(once == text, "\(file) is not canonical: run policy-run fmt")
            #expect(try PolicyFormatter().format(once, file: file) == once, "\(file): formatting is not idempotent")
        }
    }

    @Test("keys in the docs' order, two-space levels, canonical quotes, comments kept where they stand")
    func layout() throws {
        let messy = """
        # A policy written in a hurry.


        token:      
            # who signs
            keys: {jwks_file: keys.json}    # rotated monthly
            issuer: "https://issuer.example"
            algorithms: [ES256]
            claims:
                scope: {contains: read}
                tenant: "${tenant}"
            audience: 'api'
        inputs:
            tenant: {default: acme}
        description: "says: what it checks"
        policy: messy
        outputs:
            user: claims.sub
        """
        let formatted = try PolicyFormatter().format(messy, file: "messy.yaml")
        #expect(formatted == """
        # A policy written in a hurry.

        policy: messy
        description: 'says: what it checks'
        inputs:
          tenant: {default: acme}
        token:
          algorithms: [ES256]
          # who signs
          keys: {jwks_file: keys.json}    # rotated monthly
          issuer: https://issuer.example
          audience: api
          claims:
            scope: {contains: read}
            tenant: ${tenant}
        outputs:
          user: claims.sub

        """)
        #expect(try PolicyFormatter().format(formatted, file: "messy.yaml") == formatted)
    }

    @Test("lists under a key, block scalars and flow mappings over several lines keep their content")
    func structures() throws {
        let text = """
        policy: p
        description: |
          first line
            indented second line
        token:
          require:
          - sub
          - jti
          claims:
            scope: {one_of: [a,
                             b]}
          algorithms: [RS256]
        """
        let formatted = try PolicyFormatter().format(text, file: "p.yaml")
        #expect(formatted.contains("description: |\n  first line\n    indented second line\n"))
        #expect(formatted.contains("  algorithms: [RS256]\n  require:\n    - sub\n    - jti\n"))
        #expect(try PolicyFormatter().format(formatted, file: "p.yaml") == formatted)
    }

    @Test("values that need their quotes keep them; text that is not YAML is refused")
    func quotesAndRefusals() throws {
        let text = "policy: p\nflags:\n  a: 'yes'\n  b: \"300\"\n  c: 'x # y'\n  d: \"tab\\tinside\"\n  e: '@file'\n"
        let formatted = try PolicyFormatter().format(text, file: "p.yaml")
        #expect(formatted == "policy: p\nflags:\n  a: 'yes'\n  b: '300'\n  c: 'x # y'\n  d: \"tab\\tinside\"\n  e: '@file'\n")
        #expect(throws: FormatError.self) { try PolicyFormatter().format("policy: [unclosed\n", file: "bad.yaml") }
    }

    @Test("a trailing comment, however far from the value, does not change whether its quotes stay")
    func quotesBesideComments() throws {
        let text = """
        policy: p
        flags:
          a: "https://a.example"
          b: "https://b.example" # one space
          c: "https://c.example"   # three spaces
          d: '300'
          e: "300"  # two spaces
          f: 'yes'    # kept: a string only in quotes

        """
        let formatted = try PolicyFormatter().format(text, file: "p.yaml")
        #expect(formatted == """
        policy: p
        flags:
          a: https://a.example
          b: https://b.example # one space
          c: https://c.example   # three spaces
          d: '300'
          e: '300'  # two spaces
          f: 'yes'    # kept: a string only in quotes

        """, "\(formatted)")
    }
}
