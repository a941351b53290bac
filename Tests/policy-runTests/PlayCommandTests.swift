import Foundation
import Testing

/// `policy-run play` as a user starts it: the page on loopback, and clear usage errors before
/// anything listens.
@Suite("policy-run play")
struct PlayCommandTests {
    @Test("an address other than loopback needs --allow-remote; a bad address or a missing directory is a usage error")
    func refusals() throws {
        let remote = try DecodeCommandTests.run(["play", "Policies", "--listen", "0.0.0.0:0"])
        #expect(remote.status == 2 && remote.stderr.contains("is not a loopback address") && remote.stderr.contains("--allow-remote"), "\(remote.stderr)")
        let malformed = try DecodeCommandTests.run(["play", "Policies", "--listen", "8182"])
        #expect(malformed.status == 2 && malformed.stderr.contains("--listen expects HOST:PORT, got '8182'"), "\(malformed.stderr)")
        let missing = try DecodeCommandTests.run(["play", "no-such-directory"])
        #expect(missing.status == 2 && missing.stderr.contains("no-such-directory is not a directory"), "\(missing.stderr)")
        let help = try DecodeCommandTests.run(["play", "--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: policy-run play [<DIR>] [--listen <HOST:PORT>] [--allow-remote]"), "\(help.stdout)")
    }

    @Test("it serves the page and the directory's policies on the port it prints, and stops on SIGTERM")
    func serves() throws {
        let process = Process()
        process.executableURL = try DecodeCommandTests.binary()
        process.arguments = ["play", "Policies", "--listen", "127.0.0.1:0"]
        process.currentDirectoryURL = DecodeCommandTests.packageRoot
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        var printed = ""
        while !printed.contains("\n"), let chunk = try errors.fileHandleForReading.read(upToCount: 1), !chunk.isEmpty {
            printed += String(decoding: chunk, as: UTF8.self)
        }
        let url = try #require(printed.firstRange(of: #/http://127\.0\.0\.1:\d+//#).map { String(printed[$0]) }, "\(printed)")
        #expect(printed.contains("playground for 15 policies of Policies"))
        let page = try String(contentsOf: URL(string: url)!, encoding: .utf8)
        #expect(page.contains("<title>policy-run playground</title>") && page.contains(#"<script src="/playground.js" defer></script>"#))
        let list = try String(contentsOf: URL(string: url + "api/policies")!, encoding: .utf8)
        #expect(list.contains(#"{"name":"okta-id-token","tests":true}"#))
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    }
}
