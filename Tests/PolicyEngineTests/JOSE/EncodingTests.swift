import Foundation
@testable import PolicyRuntime
@testable import PolicyJOSE
import Testing

@Suite("Strict base64url and JSON")
struct EncodingTests {
    @Test("base64url round-trips every length and refuses non-canonical text", arguments: 0..<20)
    func base64RoundTrip(length: Int) throws {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
        let text = Base64URL.encode(bytes)
        #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
        #expect(try Base64URL.decode(text) == bytes)
    }

    @Test("base64url rejections", arguments: [
        "QQ==", "QQ=", "a+b/", "QQ Q", "Q", "QR", "QUJ", "QUI\n", "\u{00e9}AAA",
    ])
    func base64Rejects(text: String) {
        #expect(throws: JOSEError.self) { try Base64URL.decode(text) }
    }

    /// Foundation's base64 decoder, after translating the alphabet and padding, is the
    /// reference: text decodes only if every byte is of the alphabet, its length is not 4n+1 and
    /// it is the canonical encoding of what it decodes to (no stray trailing bits). Texts of
    /// sixteen characters and more go through the vector decoder's blocks first (thirty-two a
    /// step with AVX2, then sixteen), every byte at every position of the first five of them.
    @Test("base64url decoding agrees with Foundation's decoder on every byte at every position of a quantum and of a block")
    func base64AgainstFoundation() throws {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        func reference(_ text: [UInt8]) -> [UInt8]? {
            guard text.allSatisfy(alphabet.contains), text.count % 4 != 1 else { return nil }
            var standard = String(decoding: text.map { $0 == UInt8(ascii: "-") ? UInt8(ascii: "+") : $0 == UInt8(ascii: "_") ? UInt8(ascii: "/") : $0 }, as: UTF8.self)
            standard += String(repeating: "=", count: (4 - text.count % 4) % 4)
            guard let data = Data(base64Encoded: standard), Base64URL.encode(Array(data)) == String(decoding: text, as: UTF8.self) else { return nil }
            return Array(data)
        }
        var generator = SystemRandomNumberGenerator()
        var texts: [[UInt8]] = []
        for length in Array(1...11) + [16, 17, 18, 19, 32, 35, 47, 48, 64, 67, 80] {
            for position in 0..<length {
                for byte in UInt8.min...UInt8.max {
                    var text = (0..<length).map { _ in alphabet[Int.random(in: 0..<64, using: &generator)] }
                    text[position] = byte
                    texts.append(text)
                }
            }
        }
        for text in texts {
            let ours = text.withUnsafeBufferPointer { buffer in try? Base64URL.decode(buffer) }
            #expect(ours == reference(text), "\(text)")
        }
    }

    @Test("base64url error names the offending character and the fix")
    func base64Message() {
        #expect(throws: JOSEError(.invalidBase64URL, "invalid base64url character '=' at offset 2 (padding is not allowed in base64url)")) {
            try Base64URL.decode("QQ==")
        }
    }

    @Test("JSON values parse exactly")
    func jsonValues() throws {
        let value = try JSONParser().parse(Array(#" {"a":[1,-2,3.5e2,true,false,null,"x\u00e9\n\ud83d\ude00"],"big":123456789012345678901234567890,"min":-9223372036854775808} "#.utf8))
        let object = try #require(value.objectValue)
        #expect(object["a"] == .array([.number(.integer(1)), .number(.integer(-2)), .number(.decimal(350)), .bool(true), .bool(false), .null, .string("xé\n😀")]))
        #expect(object["big"] == .number(.bigInteger("123456789012345678901234567890")))
        #expect(object["min"] == .number(.integer(.min)))
        #expect(object.names == ["a", "big", "min"])
    }

    @Test("JSON rejections", arguments: [
        (#"{"a":1,"a":2}"#, JOSEError.Code.duplicateMember),
        (#"{"a":01}"#, .invalidJSON),
        (#"{"a":1e400}"#, .invalidJSON),
        // Found by the json fuzz target: out of the double range written as integer digits.
        ("{\"a\":1" + String(repeating: "0", count: 309) + "}", .invalidJSON),
        ("-1" + String(repeating: "3", count: 349), .invalidJSON),
        (#"{"a":NaN}"#, .invalidJSON),
        (#"{"a":"\ud800"}"#, .invalidJSON),
        (#"{"a":"\udc00x"}"#, .invalidJSON),
        (#"{"a":1} x"#, .invalidJSON),
        (#"{"a":1,}"#, .invalidJSON),
        ("{\"a\":\"\u{01}\"}", .invalidJSON),
        ("\u{FEFF}{}", .invalidJSON),
        (#"{'a':1}"#, .invalidJSON),
        (#"[1,2"#, .invalidJSON),
    ])
    func jsonRejects(text: String, code: JOSEError.Code) {
        #expect { try JSONParser().parse(Array(text.utf8)) } throws: { ($0 as? JOSEError)?.code == code }
    }

    @Test("invalid UTF-8 in a string is refused")
    func jsonInvalidUTF8() {
        let bytes: [UInt8] = Array(#"{"a":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        #expect { try JSONParser().parse(bytes) } throws: { ($0 as? JOSEError)?.code == .invalidJSON }
    }

    /// Long strings are scanned eight bytes at a time: a byte that needs a look must be found at
    /// every offset within and across those words.
    @Test("a quote, escape, control byte or non-ASCII byte is seen at every position of a long string", arguments: 0..<41)
    func jsonStringPositions(position: Int) throws {
        func string(_ middle: [UInt8], total: Int = 41) -> [UInt8] {
            let plain = Array(repeating: UInt8(ascii: "a"), count: total)
            return Array(#"{"s":""#.utf8) + plain[..<position] + middle + plain[position...] + Array(#""}"#.utf8)
        }
        func parsed(_ bytes: [UInt8]) throws -> String? { try JSONParser().parseObject(bytes, what: "a test")["s"]?.stringValue }
        let before = String(repeating: "a", count: position), after = String(repeating: "a", count: 41 - position)
        #expect(try parsed(string(Array(#"\""#.utf8))) == before + "\"" + after)
        #expect(try parsed(string(Array(#"\u00e9"#.utf8))) == before + "é" + after)
        #expect(try parsed(string([0xC3, 0xA9])) == before + "é" + after)
        #expect(try parsed(string([0x7F])) == before + "\u{7F}" + after)
        for bad: [UInt8] in [[0x01], [0x1F], [0x0A], [0xFF], [0xC3]] {
            #expect(throws: JOSEError.self) { try parsed(string(bad)) }
        }
        // An unescaped quote ends the string early, leaving content the object cannot hold.
        #expect(throws: JOSEError.self) { try parsed(string([UInt8(ascii: "\"")])) }
    }

    /// A document's last one to fifteen bytes are scanned in one step (a padded copy when the
    /// whole document is shorter than sixteen bytes): a byte that needs a look is seen there too.
    @Test("a quote, control byte or non-ASCII byte is seen at every position of short string documents", arguments: 0..<20)
    func jsonShortStringDocuments(length: Int) throws {
        for position in 0...length {
            let before = Array(repeating: UInt8(ascii: "a"), count: position), after = Array(repeating: UInt8(ascii: "a"), count: length - position)
            func document(_ middle: [UInt8]) -> [UInt8] { [UInt8(ascii: "\"")] + before + middle + after + [UInt8(ascii: "\"")] }
            let text = String(decoding: before, as: UTF8.self), rest = String(decoding: after, as: UTF8.self)
            #expect(try JSONParser().parse(document([])) == .string(text + rest))
            #expect(try JSONParser().parse(document([0xC3, 0xA9])) == .string(text + "é" + rest))
            #expect(try JSONParser().parse(document(Array(#"\""#.utf8))) == .string(text + "\"" + rest))
            for bad: [UInt8] in [[0x01], [0x1F], [0x0A], [0xFF], [UInt8(ascii: "\"")]] {
                #expect(throws: JOSEError.self, "\(bad) at \(position) of \(length)") { try JSONParser().parse(document(bad)) }
            }
        }
    }

    @Test("depth limit counts the top-level container as 1")
    func jsonDepth() throws {
        let parser = JSONParser(maxDepth: 3)
        _ = try parser.parse(Array("[[[1]]]".utf8))
        #expect { try parser.parse(Array("[[[[1]]]]".utf8)) } throws: { ($0 as? JOSEError)?.code == .jsonTooDeep }
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect { try JSONParser().parse(Array(deep.utf8)) } throws: { ($0 as? JOSEError)?.code == .jsonTooDeep }
    }

    @Test("serialization round-trips through the parser")
    func serialization() throws {
        let text = #"{"s":"q\"b\\n\n\u0001é","n":[1,-2,2.5],"o":{"t":true,"z":null}}"#
        let value = try JSONParser().parse(Array(text.utf8))
        #expect(try JSONParser().parse(value.serializedBytes()) == value)
    }
}

@Suite("Hashes for OIDC and PKCE")
struct HashTests {
    /// FIPS 180-2 "abc" digests, left halves, base64url.
    @Test("c_hash / at_hash use the left half of the alg's hash", arguments: [
        (JWSAlgorithm.rs256, "ungWv48Bz-pBQUDeXa4iIw"), (.es384, "ywB1P0WjXou1oD1pmsZQBycsMqsO3tFj"),
        (.ps512, "3a81oZNherrMQXNJriBBMRLm-k6JqX6iCp7u5ktV05o"), (.eddsa, "3a81oZNherrMQXNJriBBMRLm-k6JqX6iCp7u5ktV05o"),
    ])
    func leftHalf(algorithm: JWSAlgorithm, expected: String) {
        #expect(OIDCHash.leftHalf(of: "abc", algorithm: algorithm) == expected)
        #expect(OIDCHash.matches(claim: expected, value: "abc", algorithm: algorithm))
        #expect(!OIDCHash.matches(claim: expected, value: "abd", algorithm: algorithm))
        #expect(OIDCHash.leftHalf(of: "abc", algorithm: .ed448) == nil)
    }

    @Test("RFC 7636 Appendix B: S256 challenge")
    func pkce() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        #expect(PKCE.s256Challenge(verifier: verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(PKCE.isWellFormed(verifier: verifier))
        #expect(!PKCE.isWellFormed(verifier: String(verifier.prefix(42))))
        #expect(!PKCE.isWellFormed(verifier: verifier + "!"))
        let fresh = PKCE.randomVerifier()
        #expect(PKCE.isWellFormed(verifier: fresh) && fresh != PKCE.randomVerifier())
    }
}
