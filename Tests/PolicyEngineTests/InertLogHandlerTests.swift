import Foundation
import KeyServer
import Logging
import PolicyRuntime
import PolicyJOSE
import Synchronization
import Testing

/// The log handler the command-line tools install: control characters from a key document or a
/// policy file never reach the stream raw, in the message, the metadata or the error.
@Suite("Inert log handler")
struct InertLogHandlerTests {
    /// What a stream handler wrote, kept in memory.
    final class CapturedStream: TextOutputStream, Sendable {
        private let text = Mutex("")
        var written: String { text.withLock { $0 } }
        func write(_ string: String) { text.withLock { $0 += string } }
    }

    /// A logger whose records go through `InertLogHandler` into a stream handler writing to `stream`.
    static func logger(_ stream: CapturedStream, provider: Logger.MetadataProvider? = nil) -> Logger {
        var logger = Logger(label: "policy-engine.test") { label in
            InertLogHandler(wrapping: StreamLogHandler(label: label, stream: stream, metadataProvider: provider))
        }
        logger.logLevel = .debug
        return logger
    }

    static let hostile = "\u{1B}[31mred\u{07}\r\nFORGED line"
    static let escaped = #"\u{001B}[31mred\u{0007}\r\nFORGED line"#

    /// No raw control character (a C0 one, DEL or a C1 one) but the newline that ends each record.
    static func isInert(_ text: String) -> Bool {
        !text.unicodeScalars.contains { InertText.needsEscape($0) && $0 != "\n" }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String { "failed: " + InertLogHandlerTests.hostile }
    }

    @Test("escapes the message, metadata keys and values (nested too), logger metadata, provided metadata and the error")
    func escapesEverything() {
        let stream = CapturedStream()
        let provider = Logger.MetadataProvider { ["provided": .string(Self.hostile)] }
        var logger = Self.logger(stream, provider: provider)
        logger[metadataKey: "set\u{1B}"] = .string(Self.hostile)
        logger.warning("message \(Self.hostile)", error: Failure(), metadata: [
            "plain": .string(Self.hostile),
            "key\r\nFORGED": "value",
            "nested": .dictionary(["inner": .array([.string(Self.hostile), .stringConvertible(Self.hostile)])]),
        ])
        let written = stream.written
        #expect(Self.isInert(written), "\(written.debugDescription)")
        #expect(written.hasSuffix("\n") && written.split(separator: "\n").count == 1, "\(written.debugDescription)")
        #expect(written.contains("message " + Self.escaped))
        #expect(written.contains("plain=" + Self.escaped))
        #expect(written.contains(#"key\r\nFORGED=value"#))
        #expect(written.contains(#"set\u{001B}="# + Self.escaped))
        #expect(written.contains("provided=" + Self.escaped))
        #expect(written.contains("error.message=failed: " + Self.escaped))
        #expect(written.contains("nested=") && written.components(separatedBy: Self.escaped).count - 1 == 5, "\(written)")
    }

    @Test("nested metadata is escaped at every depth, keys included, whatever the wrapped handler prints")
    func nestedMetadata() {
        let escaped = InertLogHandler.escaped([
            "outer\u{1B}": .dictionary(["inner\n": .array([.string(Self.hostile), .stringConvertible(Self.hostile), .dictionary(["deep": .string("\u{7}")])])]),
        ])
        guard case let .dictionary(outer)? = escaped[#"outer\u{001B}"#], case let .array(values)? = outer[#"inner\n"#], values.count == 3,
              case let .string(first) = values[0], case let .string(second) = values[1], case let .dictionary(deep) = values[2],
              case let .string(bell)? = deep["deep"] else {
            Issue.record("the structure changed: \(escaped)")
            return
        }
        #expect(first == Self.escaped && second == Self.escaped && bell == #"\u{0007}"#)
    }

    @Test("plain text passes unchanged, and the log level is the wrapped handler's")
    func plainText() {
        let stream = CapturedStream()
        var logger = Self.logger(stream)
        logger.logLevel = .warning
        logger.info("not written")
        logger.warning("key set fetch failed", metadata: ["source": "jwks_uri https://idp.example.com/jwks", "failures": "2"])
        #expect(stream.written.hasSuffix("warning policy-engine.test: failures=2 source=jwks_uri https://idp.example.com/jwks [PolicyEngineTests] key set fetch failed\n"),
                "\(stream.written)")
    }

    @Test("a key document's kid and discovery issuer, fetched from 127.0.0.1, reach the cache's warnings escaped")
    func keyDocumentWarnings() async throws {
        let server = try await KeyServer()
        // An EC key off its curve: unusable, so the set has no usable key and the warning quotes its kid.
        await server.json("/jwks", #"{"keys":[{"kty":"EC","crv":"P-256","x":"AAAA","y":"AAAA","kid":"\u001b[31mred\u0007\r\nFORGED line"}]}"#)
        let issuer = server.url("").absoluteString
        await server.json("/.well-known/openid-configuration",
                          #"{"issuer": "\#(issuer)\u001b[31mred\u0007\r\nFORGED line", "jwks_uri": "\#(server.url("/jwks").absoluteString)"}"#)
        let stream = CapturedStream()
        let cache = JWKSCache(logger: Self.logger(stream))
        let unusable = await cache.resolve(RemoteKeySource(location: .jwksURI(server.url("/jwks")), allowHTTP: true), kid: nil, untilFetched: true)
        let mismatch = await cache.resolve(RemoteKeySource(location: .discovery(issuer: issuer), allowHTTP: true), kid: nil, untilFetched: true)
        guard case let .unavailable(first) = unusable, case let .unavailable(second) = mismatch else {
            Issue.record("a set without usable keys or with another issuer was used")
            return
        }
        #expect(first.code == .noUsableKey && first.message.contains(Self.hostile))
        #expect(second.code == .issuerMismatch && second.message.contains(Self.hostile))
        let written = stream.written
        #expect(Self.isInert(written), "\(written.debugDescription)")
        #expect(written.split(separator: "\n").count == 2, "\(written)")
        #expect(written.contains("code=no_usable_key") && written.contains("code=issuer_mismatch"))
        #expect(written.components(separatedBy: Self.escaped).count - 1 == 2, "\(written)")
        await server.stop()
    }
}
