import Foundation
import PolicyRuntime
import PolicyJOSE
import PolicyServer
import Testing

/// What the reload watcher sees: the swaps Kubernetes makes in a mounted ConfigMap, links to the
/// directory itself, and files rewritten with the same size and time.
@Suite("Reload watch")
struct ReloadWatchTests {
    /// A temporary directory, removed at the end.
    final class Scratch: Sendable {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reload-watch-\(UUID().uuidString)").path

        init() throws {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        /// A policy named `name` (same length for every name the tests use, so sizes never differ).
        func writePolicy(_ name: String, to directory: String) throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try "policy: \(name)\nrequest:\n  method: [GET]\n".write(toFile: directory + "/api.yaml", atomically: true, encoding: .utf8)
        }

        /// `ln -sfn target name.tmp && mv -T name.tmp name`, as kubelet's atomic writer swaps `..data`.
        func swapLink(_ name: String, to target: String, in directory: String) throws {
            let temporary = directory + "/" + name + ".tmp"
            try? FileManager.default.removeItem(atPath: temporary)
            try FileManager.default.createSymbolicLink(atPath: temporary, withDestinationPath: target)
            #expect(rename(temporary, directory + "/" + name) == 0)
        }
    }

    func served(_ policies: ServedPolicies) -> [String] { policies.current.policies.keys.sorted() }

    @Test("a ConfigMap update (a new ..data directory swapped in by renaming a link) is seen and reloaded")
    func configMapSwap() throws {
        let scratch = try Scratch()
        let mount = scratch.path + "/policies"
        // The mounted volume as kubelet lays it out: versions in hidden directories, ..data
        // naming the current one, and each file a link through ..data.
        try scratch.writePolicy("alpha", to: mount + "/..2026_11_25_19_00_00.000000001")
        try scratch.writePolicy("gamma", to: mount + "/..2026_11_25_19_05_00.000000002")
        try scratch.swapLink("..data", to: "..2026_11_25_19_00_00.000000001", in: mount)
        try FileManager.default.createSymbolicLink(atPath: mount + "/api.yaml", withDestinationPath: "..data/api.yaml")
        let policies = try ServedPolicies(directory: mount, keyCache: JWKSCache())
        #expect(served(policies) == ["alpha"])
        #expect(policies.reloadIfChanged() == nil)

        try scratch.swapLink("..data", to: "..2026_11_25_19_05_00.000000002", in: mount)
        let status = try #require(policies.reloadIfChanged(), "the swap of ..data was not seen")
        #expect(status.succeeded && served(policies) == ["gamma"])
        // kubelet then removes the old version; nothing served changes, and a reload of the
        // same policies is harmless.
        try FileManager.default.removeItem(atPath: mount + "/..2026_11_25_19_00_00.000000001")
        _ = policies.reloadIfChanged()
        #expect(served(policies) == ["gamma"])
        #expect(policies.reloadIfChanged() == nil)
    }

    @Test("a policy directory named through a link (--policies /etc/policy/current) is watched where the link leads, and follows it when it moves")
    func directoryIsALink() throws {
        let scratch = try Scratch()
        try scratch.writePolicy("alpha", to: scratch.path + "/v1")
        try scratch.writePolicy("gamma", to: scratch.path + "/v2")
        try scratch.swapLink("current", to: "v1", in: scratch.path)
        let policies = try ServedPolicies(directory: scratch.path + "/current", keyCache: JWKSCache())
        #expect(served(policies) == ["alpha"])

        try scratch.writePolicy("delta", to: scratch.path + "/v1")
        #expect(try #require(policies.reloadIfChanged(), "a change below the linked directory was not seen").succeeded)
        #expect(served(policies) == ["delta"])

        try scratch.swapLink("current", to: "v2", in: scratch.path)
        #expect(try #require(policies.reloadIfChanged(), "the link's move was not seen").succeeded)
        #expect(served(policies) == ["gamma"])
    }

    @Test("a file rewritten in place with the same size and modification time is seen by its content")
    func sameSizeSameTime() throws {
        let scratch = try Scratch()
        try scratch.writePolicy("alpha", to: scratch.path)
        let file = scratch.path + "/api.yaml"
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        let policies = try ServedPolicies(directory: scratch.path, keyCache: JWKSCache())
        let handle = try #require(FileHandle(forWritingAtPath: file))
        try handle.write(contentsOf: Data("policy: gamma".utf8))
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: attributes[.modificationDate]!], ofItemAtPath: file)
        #expect(try #require(policies.reloadIfChanged(), "an in-place rewrite was not seen").succeeded)
        #expect(served(policies) == ["gamma"])
    }
}
