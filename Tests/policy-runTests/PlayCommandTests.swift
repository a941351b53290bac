import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
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
        let match = try #require(printed.firstMatch(of: #/(http://127\.0\.0\.1:\d+/)\?token=([0-9a-f]{64})/#), "\(printed)")
        let (url, token) = (String(match.1), String(match.2))
        #expect(printed.contains("playground for 15 policies of Policies"))
        let page = try String(contentsOf: URL(string: url)!, encoding: .utf8)
        #expect(page.contains("<title>policy-run playground</title>") && page.contains(#"<script src="/playground.js" defer></script>"#))
        // The calls need the printed token.
        var request = URLRequest(url: URL(string: url + "api/policies")!)
        let (_, refused) = try awaitData(request)
        #expect((refused as? HTTPURLResponse)?.statusCode == 403)
        request.setValue(token, forHTTPHeaderField: "X-Playground-Token")
        let (list, answered) = try awaitData(request)
        #expect((answered as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: list, as: UTF8.self).contains(#"{"name":"okta-id-token","tests":true}"#))
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    }

    /// `request`'s body and response, waited for on this thread.
    func awaitData(_ request: URLRequest) throws -> (Data, URLResponse?) {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: (Data, URLResponse?, (any Error)?) = (Data(), nil, nil)
        URLSession.shared.dataTask(with: request) { data, response, error in
            result = (data ?? Data(), response, error)
            done.signal()
        }.resume()
        #expect(done.wait(timeout: .now() + 30) == .success)
        if let error = result.2 { throw error }
        return (result.0, result.1)
    }
}
