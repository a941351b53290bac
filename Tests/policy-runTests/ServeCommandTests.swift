import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `policy-run serve` as a process: it starts on the bundled policies, answers, and stops cleanly on SIGTERM.
@Suite("policy-run serve")
struct ServeCommandTests {
    @Test("serves Policies/ on an ephemeral port, answers a check, reloads on SIGHUP, and exits 0 on SIGTERM")
    func serveAndStop() async throws {
        let process = Process()
        process.executableURL = try DecodeCommandTests.binary()
        process.arguments = ["serve", "--policies", "Policies", "--listen", "127.0.0.1:0"]
        process.currentDirectoryURL = DecodeCommandTests.packageRoot
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        // The line `serving NAMES on 127.0.0.1:PORT` says where it listens.
        var announced = ""
        while !announced.contains("serving "), process.isRunning {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            announced += String(decoding: chunk, as: UTF8.self)
        }
        let line = try #require(announced.split(separator: "\n").first { $0.hasPrefix("serving ") })
        let port = try #require(line.split(separator: ":").last.flatMap { Int($0) })
        #expect(line.contains("okta-id-token") && line.contains("rfc9068-access-token"))

        let token = try String(contentsOf: DecodeCommandTests.packageRoot.appendingPathComponent("Policies/examples/sample-id-token.jwt"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/check/okta-id-token")!)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"token": "\#(token)", "inputs": {"nonce": "n-0S6_WzA2Mj"}, "now": "2026-11-21T09:30:00Z"}"#.utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self).contains(#""valid":true"#))

        // SIGHUP reloads the directory, as daemons do.
        kill(process.processIdentifier, SIGHUP)
        var logged = ""
        while !logged.contains("policies reloaded"), process.isRunning {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            logged += String(decoding: chunk, as: UTF8.self)
        }
        #expect(logged.contains("policies reloaded"))

        process.terminate()  // SIGTERM
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    }

    @Test("serve --check validates the bundled configuration and every policy without serving")
    func checkConfiguration() throws {
        let result = try DecodeCommandTests.run(["serve", "--config", "deploy/serve.yaml", "--check"])
        #expect(result.status == 0 && result.stdout.hasPrefix("ok: deploy/serve.yaml serves authhub-authenticate,") && result.stdout.contains("(2 routes)"))
    }

    @Test("a policy directory that does not compile, or a bad --listen, exits 2 before serving")
    func refusals() throws {
        let broken = try DecodeCommandTests.run(["serve", "--policies", "Tests/SchemaFixtures/invalid", "--listen", "127.0.0.1:0"])
        #expect(broken.status == 2 && broken.stderr.contains("error[") && !broken.stderr.contains("serving "))
        let listen = try DecodeCommandTests.run(["serve", "--policies", "Policies", "--listen", "8181"])
        #expect(listen.status == 2 && listen.stderr.contains("--listen expects HOST:PORT"))
    }

    @Test("serve hands its arguments to policy-serve: the same help and errors; without policy-serve beside it, exit 2 saying so")
    func handOff() throws {
        let help = try DecodeCommandTests.run(["serve", "--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: policy-serve [--policies <DIR>] [--config <FILE>]"))
        let version = try DecodeCommandTests.run(["serve", "--version"])
        #expect(version.status == 0 && version.stdout == "0.15.0\n")

        // policy-run alone in a folder: the hand-off has nothing to run.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lone-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let lone = folder.appendingPathComponent("policy-run")
        try FileManager.default.copyItem(at: try DecodeCommandTests.binary(), to: lone)
        let result = try DecodeCommandTests.run(["serve", "--policies", "Policies"], binary: lone)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("error: policy-run serve runs policy-serve, which could not be started from \(folder.path)/policy-serve"))
        #expect(result.stderr.contains("swift build --product policy-serve"))
    }
}
