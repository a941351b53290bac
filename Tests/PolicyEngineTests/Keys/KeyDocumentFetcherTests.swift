import FlyingFox
import KeyServer
import Foundation
import PolicyEngine
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
}
