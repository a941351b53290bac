import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `policy-run serve` as a process: it starts on the bundled policies, answers, and stops cleanly on SIGTERM.
@Suite("policy-run serve")
struct ServeCommandTests {
    /// A running `policy-run serve ARGUMENTS`, its port (from the `serving NAMES on HOST:PORT`
    /// line), its standard error, and that line.
    static func start(_ arguments: [String]) throws -> (process: Process, port: Int, errors: Pipe, line: String) {
        let process = Process()
        process.executableURL = try DecodeCommandTests.binary()
        process.arguments = ["serve"] + arguments
        process.currentDirectoryURL = DecodeCommandTests.packageRoot
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var announced = ""
        while !announced.contains("serving "), process.isRunning {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            announced += String(decoding: chunk, as: UTF8.self)
        }
        let line = try #require(announced.split(separator: "\n").first { $0.hasPrefix("serving ") })
        let port = try #require(line.split(separator: ":").last.flatMap { Int($0) })
        return (process, port, errors, String(line))
    }

    /// A check of the bundled sample ID token at its own time: valid.
    static func check(_ port: Int) async throws -> (status: Int, connection: String?, body: String) {
        let token = try String(contentsOf: DecodeCommandTests.packageRoot.appendingPathComponent("Policies/examples/sample-id-token.jwt"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/check/okta-id-token")!)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"token": "\#(token)", "inputs": {"nonce": "n-0S6_WzA2Mj"}, "now": "2026-11-21T09:30:00Z"}"#.utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        return (http?.statusCode ?? 0, http?.value(forHTTPHeaderField: "Connection"), String(decoding: data, as: UTF8.self))
    }

    /// What `/readyz` answers: its status and body.
    static func readiness(_ port: Int) async throws -> (status: Int, body: String) {
        let (data, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/readyz")!)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test("serves Policies/ on an ephemeral port, answers a check, reloads on SIGHUP, and exits 0 on SIGTERM (--drain 0: at once)")
    func serveAndStop() async throws {
        let (process, port, errors, line) = try Self.start(["--policies", "Policies", "--listen", "127.0.0.1:0", "--drain", "0"])
        defer { if process.isRunning { process.terminate() } }
        #expect(line.contains("okta-id-token") && line.contains("rfc9068-access-token"))
        let (status, _, body) = try await Self.check(port)
        #expect(status == 200 && body.contains(#""valid":true"#))

        // SIGHUP reloads the directory, as daemons do.
        kill(process.processIdentifier, SIGHUP)
        var logged = ""
        while !logged.contains("policies reloaded"), process.isRunning {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            logged += String(decoding: chunk, as: UTF8.self)
        }
        #expect(logged.contains("policies reloaded"))

        let stopped = ContinuousClock.now
        process.terminate()  // SIGTERM
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(ContinuousClock.now - stopped < .seconds(2))
    }

    @Test("a port another process listens on: 'error: cannot listen on 127.0.0.1:PORT: address in use', exit 2, no NIO text")
    func portInUse() async throws {
        let (first, port, _, _) = try Self.start(["--policies", "Policies", "--listen", "127.0.0.1:0", "--drain", "0"])
        defer { if first.isRunning { first.terminate() } }
        let second = try DecodeCommandTests.run(["serve", "--policies", "Policies", "--listen", "127.0.0.1:\(port)"])
        #expect(second.status == 2, "\(second.stderr)")
        #expect(second.stderr.contains("error: cannot listen on 127.0.0.1:\(port): address in use"), "\(second.stderr)")
        #expect(!second.stderr.contains("errno") && !second.stderr.contains("bind("), "\(second.stderr)")
        #expect(try await Self.check(port).status == 200, "the first server still serves")
    }

    @Test("SIGTERM drains: /readyz answers 503 at once, calls are still served with Connection: close, then exit 0 with every call logged")
    func drain() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("drain-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let (process, port, _, _) = try Self.start(["--policies", "Policies", "--listen", "127.0.0.1:0", "--drain", "3s",
                                                    "--decision-log", "timing", "--decision-log-file", log])
        defer { if process.isRunning { process.terminate() } }
        var answered = 0
        for _ in 0..<5 {
            #expect(try await Self.check(port).status == 200)
            answered += 1
        }
        let stopped = ContinuousClock.now
        process.terminate()  // SIGTERM
        try await Task.sleep(for: .milliseconds(200))
        let ready = try await Self.readiness(port)
        #expect(ready.status == 503 && ready.body.contains("draining"))
        // Two seconds into a three-second drain, every call is still answered, and told to go.
        while ContinuousClock.now - stopped < .seconds(2) {
            let (status, connection, _) = try await Self.check(port)
            #expect(status == 200 && connection?.lowercased() == "close", "a call during the drain: \(status) \(connection ?? "-")")
            answered += 1
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(process.isRunning)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(ContinuousClock.now - stopped >= .seconds(3) && ContinuousClock.now - stopped < .seconds(8))
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == answered, "\(lines.count) decision log lines for \(answered) calls")
    }

    @Test("a second SIGTERM during the drain ends the server at once")
    func secondSignal() async throws {
        let (process, port, _, _) = try Self.start(["--policies", "Policies", "--listen", "127.0.0.1:0", "--drain", "60s"])
        defer { if process.isRunning { process.terminate() } }
        #expect(try await Self.check(port).status == 200)
        process.terminate()
        // Two SIGTERMs sent before the server handles the first are one pending signal: the
        // second goes only once /readyz says the first began the drain (a loaded machine may take
        // longer than any fixed pause).
        let first = ContinuousClock.now
        var draining = false
        while !draining, ContinuousClock.now - first < .seconds(10) {
            draining = try await Self.readiness(port).status == 503
            if !draining { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(draining && process.isRunning)
        let stopped = ContinuousClock.now
        process.terminate()
        process.waitUntilExit()
        #expect(ContinuousClock.now - stopped < .seconds(5) && process.terminationReason == .exit)
    }

    @Test("serve --check validates the bundled configuration and every policy without serving; an input from a header is warned about")
    func checkConfiguration() throws {
        let result = try DecodeCommandTests.run(["serve", "--config", "deploy/serve.yaml", "--check"])
        #expect(result.status == 0 && result.stdout.hasPrefix("ok: deploy/serve.yaml serves authhub-authenticate,") && result.stdout.contains("(2 routes)"))
        #expect(!result.stderr.contains("warning"), "\(result.stderr)")

        let file = DecodeCommandTests.packageRoot.appendingPathComponent("deploy/serve-\(UUID().uuidString).yaml").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try """
        policies: ../Policies
        routes:
          - match: {path_prefix: /orders/}
            policy: rfc9068-access-token
            inputs:
              required_scope: {header: X-Required-Scope}
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let warned = try DecodeCommandTests.run(["serve", "--config", file, "--check"])
        #expect(warned.status == 0 && warned.stderr.contains("warning[insecure_setting]")
                && warned.stderr.contains("input 'required_scope' comes from the request header X-Required-Scope, which the client chooses"),
                "\(warned.stderr)")
        #expect(warned.stderr.contains(".yaml:3:5: warning"), "the warning points at the route: \(warned.stderr)")

        let sized = try DecodeCommandTests.run(["serve", "--config", "deploy/serve.yaml", "--signature-cache", "256MiB", "--check"])
        #expect(sized.status == 0, "\(sized.stderr)")
        let badSize = try DecodeCommandTests.run(["serve", "--config", "deploy/serve.yaml", "--signature-cache", "64MB", "--check"])
        #expect(badSize.status == 2 && badSize.stderr.contains("--signature-cache: '64MB' is not a size: write a whole number of bytes, or of KiB, MiB or GiB (64MiB)"),
                "\(badSize.stderr)")
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
