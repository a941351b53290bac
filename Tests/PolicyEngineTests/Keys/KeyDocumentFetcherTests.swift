import FlyingFox
import KeyServer
import Foundation
import PolicyRuntime
import PolicyJOSE
import Testing

/// The bounded HTTP GET behind remote key sources, against a real server on 127.0.0.1.
@Suite("Key document fetcher")
struct KeyDocumentFetcherTests {
    /// Generous: a loaded machine running the whole suite in parallel must not turn an answer into
    /// a timeout. The timeout itself is tested with its own short one.
    static let fetcher = KeyDocumentFetcher(timeout: .seconds(15), maxBytes: 1 << 20, allowHTTP: true)

    func expectFailure(_ code: KeyFetchError.Code, _ url: URL, fetcher: KeyDocumentFetcher = Self.fetcher) async {
        do {
            let body = try await fetcher.fetch(url)
            Issue.record("expected \(code), fetched \(body.count) bytes")
        } catch {
            #expect(error.code == code, "\(error)")
        }
    }

    @Test("fetches a JSON body")
    func fetches() async throws {
        let server = try await KeyServer()
        await server.json("/jwks", #"{"keys":[]}"#, contentType: "application/jwk-set+json; charset=utf-8")
        let body = try await Self.fetcher.fetch(server.url("/jwks"))
        #expect(String(decoding: body, as: UTF8.self) == #"{"keys":[]}"#)
        #expect(await server.requests("/jwks") == 1)
        await server.stop()
    }

    @Test("refuses non-200 answers, non-JSON content and plain http without allow_http")
    func refusals() async throws {
        let server = try await KeyServer()
        await server.json("/error", #"{"error":"boom"}"#, status: .internalServerError)
        await server.json("/html", "<html></html>", contentType: "text/html")
        await server.json("/jwks", #"{"keys":[]}"#)
        await expectFailure(.httpStatus, server.url("/error"))
        await expectFailure(.contentType, server.url("/html"))
        await expectFailure(.insecureURL, server.url("/jwks"), fetcher: KeyDocumentFetcher())
        #expect(await server.requests("/jwks") == 0)
        await expectFailure(.insecureURL, URL(string: "file:///etc/passwd")!)
        await server.stop()
    }

    @Test("a slow server times out")
    func slow() async throws {
        let server = try await KeyServer()
        await server.route("/slow") { _ in
            try await Task.sleep(for: .seconds(30))
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: Data("{}".utf8))
        }
        let start = ContinuousClock.now
        await expectFailure(.timeout, server.url("/slow"), fetcher: KeyDocumentFetcher(timeout: .seconds(1), maxBytes: 1 << 20, allowHTTP: true))
        // Well before the answer would come, with room for a loaded machine.
        #expect(ContinuousClock.now - start < .seconds(20))
        await server.stop()
    }

    @Test("a 50 MB answer is cut off at the cap")
    func huge() async throws {
        let server = try await KeyServer()
        let huge = Data(repeating: 0x20, count: 50 << 20)
        await server.route("/huge") { _ in HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: huge) }
        let fetcher = KeyDocumentFetcher(timeout: .seconds(20), maxBytes: 1 << 20, allowHTTP: true)
        await expectFailure(.tooLarge, server.url("/huge"), fetcher: fetcher)
        await server.stop()
    }

    @Test("a server that is down is a transport error")
    func down() async throws {
        let server = try await KeyServer()
        let url = server.url("/jwks")
        await server.stop()
        await expectFailure(.transport, url)
    }

    @Test("redirects are followed within https (here loopback http, allowed), five at most, and never to another scheme")
    func redirects() async throws {
        let server = try await KeyServer()
        await server.json("/jwks", #"{"keys":[]}"#)
        let target = server.url("/jwks").absoluteString
        await server.route("/moved") { _ in HTTPResponse(statusCode: .found, headers: [.location: target]) }
        await server.route("/file") { _ in HTTPResponse(statusCode: .movedPermanently, headers: [.location: "file:///etc/passwd"]) }
        await server.route("/loop") { _ in HTTPResponse(statusCode: .temporaryRedirect, headers: [.location: "/loop"]) }
        let body = try await Self.fetcher.fetch(server.url("/moved"))
        #expect(String(decoding: body, as: UTF8.self) == #"{"keys":[]}"#)
        #expect(await server.requests("/jwks") == 1)
        await expectFailure(.insecureURL, server.url("/file"))
        do {
            _ = try await Self.fetcher.fetch(server.url("/loop"))
            Issue.record("a redirect loop was followed to an answer")
        } catch {
            #expect(error.code == .transport && error.message.hasSuffix("redirected more than 5 times"), "\(error)")
        }
        #expect(await server.requests("/loop") == 6)
        await server.stop()
    }

    @Test("an https server whose certificate no trusted authority signed is refused, before any request")
    func untrustedCertificate() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let make = try Self.openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "key.pem",
                                     "-out", "cert.pem", "-days", "2", "-subj", "/CN=127.0.0.1"], in: folder)
        make.waitUntilExit()
        #expect(make.terminationStatus == 0)
        // A real TLS server on loopback (OpenSSL's own), answering one connection.
        let output = Pipe()
        let server = try Self.openssl(["s_server", "-accept", "127.0.0.1:0", "-cert", "cert.pem", "-key", "key.pem", "-www", "-naccept", "1"],
                                      in: folder, output: output)
        defer { if server.isRunning { server.terminate() } }
        var announced = ""
        while !announced.contains("ACCEPT "), server.isRunning {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            announced += String(decoding: chunk, as: UTF8.self)
        }
        let line = try #require(announced.split(separator: "\n").first { $0.hasPrefix("ACCEPT ") })
        let port = try #require(line.split(separator: ":").last.flatMap { Int($0) })
        do {
            _ = try await KeyDocumentFetcher(timeout: .seconds(15)).fetch(URL(string: "https://127.0.0.1:\(port)/")!)
            Issue.record("a self-signed certificate was accepted")
        } catch {
            #expect(error.code == .transport && error.message.contains("certificate"), "\(error)")
        }
    }

    @Test("a libcurl that cannot be loaded is a transport error that says what to install")
    func missingLibrary() throws {
        guard case .failure(let error) = CurlLibrary.open("libcurl-absent.so.9") else {
            Issue.record("a library that does not exist was opened")
            return
        }
        #expect(error.code == .transport && error.message.contains("libcurl-absent.so.9") && error.message.contains("apt-get install libcurl4"))
    }

    /// Starts `openssl arguments` in `folder`.
    static func openssl(_ arguments: [String], in folder: URL, output: Pipe? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.standardOutput = output ?? FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
}
