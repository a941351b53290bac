@testable import PolicyJOSE
import Testing

/// Headers decoded once per text must be exactly the headers decoded each time: a held header
/// answers only for the same bytes under the same depth bound, and a refused header is refused
/// with the same error whether or not the cache holds others.
@Suite("Recently decoded JOSE headers")
struct JOSEHeaderCacheTests {
    static func header(_ json: String) -> String { Base64URL.encode(Array(json.utf8)) }
    static let payload = Base64URL.encode(Array(#"{"sub":"u"}"#.utf8))
    static let signature = Base64URL.encode([UInt8](repeating: 7, count: 32))
    static func token(_ headerJSON: String) -> String { "\(header(headerJSON)).\(payload).\(signature)" }

    @Test("a cached header is the header parsed without the cache, for each of many texts")
    func sameAsUncached() throws {
        let cache = JOSEHeaderCache()
        // More texts than the cache holds, each seen three times, so entries are replaced.
        let headers = (0..<(JOSEHeaderCache.entryCount + 3)).map { #"{"alg":"HS256","kid":"k\#($0)","typ":"JWT"}"# }
        for round in 0..<3 {
            for json in headers {
                let cached = try CompactJWS(Self.token(json), headers: cache)
                let fresh = try CompactJWS(Self.token(json))
                #expect(cached.header == fresh.header, "round \(round): \(json)")
                #expect(cached.keyID == fresh.keyID && cached.algorithm == fresh.algorithm)
            }
        }
    }

    @Test("a header held under one depth bound is judged again under another")
    func depthIsPartOfTheKey() throws {
        let cache = JOSEHeaderCache()
        let deep = Self.token(#"{"alg":"HS256","x":{"a":{"b":1}}}"#)
        var roomy = TokenLimits.standard
        roomy.maxJSONDepth = 3
        var tight = TokenLimits.standard
        tight.maxJSONDepth = 2
        _ = try CompactJWS(deep, limits: roomy, headers: cache)
        #expect { try CompactJWS(deep, limits: tight, headers: cache) } throws: { ($0 as? JOSEError)?.code == .jsonTooDeep }
        #expect(try CompactJWS(deep, limits: roomy, headers: cache).header.object["x"] != nil)
    }

    @Test("refused headers are refused as without the cache, and are not held")
    func refusalsAreNotHeld() throws {
        let cache = JOSEHeaderCache()
        let refused = [#"{"alg":"none"}"#, #"{"alg":1}"#, #"{"kid":"k"}"#, #"{"alg":"HS256","alg":"RS256"}"#, #"{"alg":"HS256","kid":7}"#,
                       #"{"alg":"HS256","crit":["alg"]}"#]
        for _ in 0..<2 {
            for json in refused {
                let uncached = Result { () throws(JOSEError) in try CompactJWS(Self.token(json)) }
                let cached = Result { () throws(JOSEError) in try CompactJWS(Self.token(json), headers: cache) }
                guard case let .failure(expected) = uncached, case let .failure(found) = cached else {
                    Issue.record("\(json) was accepted")
                    continue
                }
                #expect(found == expected, "\(json)")
            }
        }
        // A header text not canonically encoded differs in its bytes: never answered for by another's.
        let canonical = Self.header(#"{"alg":"HS256"} "#)  // 16 bytes: 4 trailing bits
        _ = try CompactJWS("\(canonical).\(Self.payload).\(Self.signature)", headers: cache)
        var altered = Array(canonical.utf8)
        altered[altered.count - 1] += 1
        #expect { try CompactJWS("\(String(decoding: altered, as: UTF8.self)).\(Self.payload).\(Self.signature)", headers: cache) }
            throws: { ($0 as? JOSEError)?.code == .invalidBase64URL }
    }
}
