import Foundation
import Testing

/// The layers of DESIGN.md, checked on the source tree: SwiftPM lets a target import any module
/// of its dependencies' dependencies (a C library included), so what may import what is
/// enforced here.
@Suite("Layer imports")
struct LayerImportTests {
    /// Each module that only some source folders may import, with those folders.
    static let confinedModules: [(module: String, folders: [String])] = [
        ("COpenSSL", ["PolicyCrypto"]),
        ("CSodium", ["PolicyCrypto"]),
        ("CZlib", ["PolicyCrypto"]),
        ("CBoringSSLVerify", ["PolicyCrypto/BoringSSL"]),
        ("CRE2", ["Rules/Matchers"]),
        ("CCurl", ["PolicyRuntime/Keys"]),
        ("CJSONScan", ["PolicyJOSE"]),
        ("CBase64URL", ["PolicyJOSE"]),
        ("CHighwayHash", ["PolicyRuntime/Evaluating"]),
        ("CPrefetch", ["PolicyRuntime/Evaluating"]),
        ("Rules", ["PolicyEngine", "policy-run", "PolicyAuthoring", "PolicyHTTP", "PolicyServer", "PolicyPlayground"]),
        ("HTTPTypes", ["PolicyHTTP", "PolicyServer", "PolicyPlayground"]),
        ("PolicyHTTP", ["PolicyServer", "PolicyEngineHummingbird"]),
        ("Hummingbird", ["PolicyServer", "PolicyEngineHummingbird", "PolicyPlayground"]),
        ("Prometheus", ["PolicyServer"]),
        // The middleware stands on PolicyHTTP, never on the server (Prometheus, the router).
        ("PolicyServer", ["policy-serve"]),
        // The playground is served by policy-serve only: policy-run hands `play` over to it.
        ("PolicyPlayground", ["policy-serve"]),
        ("ArgumentParser", ["policy-run", "policy-serve", "PolicyCommandLine"]),
        ("Yams", ["PolicyRuntime/Loading"]),
        ("ArrowIPC", ["PolicyRuntime/Batch"]),
    ]

    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// Every `import` of every Swift file under Sources, as (path relative to Sources, module).
    static func imports() throws -> [(file: String, module: String)] {
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        var found: [(String, String)] = []
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ").filter { !$0.hasPrefix("@") }
                let modifiers: Set<Substring> = ["public", "package", "internal", "private", "fileprivate"]
                let rest = words.drop { modifiers.contains($0) }
                if rest.first == "import", rest.count >= 2 { found.append((file, String(rest[rest.index(after: rest.startIndex)]))) }
            }
        }
        return found
    }

    @Test("the C crypto, compression, regex and HTTP libraries, the catalog, the server and the CLI's parser are imported only where their layer allows")
    func confined() throws {
        let imports = try Self.imports()
        #expect(imports.count > 100, "the source tree was not found at \(Self.sources.path)")
        for (module, folders) in Self.confinedModules {
            let offenders = imports.filter { found in found.module == module && !folders.contains { found.file.hasPrefix($0 + "/") } }
            #expect(offenders.isEmpty, "\(module) may be imported only under \(folders): \(offenders.map(\.file))")
            #expect(imports.contains { $0.module == module }, "no file imports \(module): is the table stale?")
        }
    }
}
