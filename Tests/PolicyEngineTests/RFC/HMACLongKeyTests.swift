import PolicyCrypto
import Testing

/// HMAC with a key longer than the hash's block, which RFC 2104 hashes first: the case the
/// Wycheproof files (keys of at most a block) leave out. RFC 2202 §3 test case 6 (SHA-1) and
/// RFC 4231 §4.7 test case 6 (SHA-2).
@Suite("HMAC with keys longer than a block")
struct HMACLongKeyTests {
    static let message = Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)

    static let cases: [(DigestAlgorithm, Int, String)] = [
        (.sha1, 80, "aa4ae5e15272d00e95705637ce8a3b55ed402112"),
        (.sha256, 131, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        (.sha384, 131, "4ece084485813e9088d2c63a041bc5b44f9ef1012a2b588f3cd11f05033ac4c60c2ef6ab4030fe8296248df163f44952"),
        (.sha512, 131, "80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f3526b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598"),
    ]

    @Test("The RFCs' tags for a key of 0xaa bytes", arguments: cases)
    func longKey(digest: DigestAlgorithm, keyLength: Int, tag: String) throws {
        let key = try HMACKey(secret: [UInt8](repeating: 0xAA, count: keyLength), digest: digest)
        let expected = stride(from: 0, to: tag.count, by: 2).map { UInt8(tag.dropFirst($0).prefix(2), radix: 16)! }
        #expect(key.authenticationCode(Self.message) == expected)
        #expect(Self.message.withUnsafeBytes { message in expected.withUnsafeBytes { key.verify(signature: $0, message: message) } })
        var wrong = expected
        wrong[wrong.count - 1] ^= 1
        #expect(!Self.message.withUnsafeBytes { message in wrong.withUnsafeBytes { key.verify(signature: $0, message: message) } })
    }

    @Test("Tags computed at once from many threads agree: the key's pads are only read")
    func concurrent() async throws {
        let key = try HMACKey(secret: Array("a secret of thirty-two bytes....".utf8), digest: .sha256)
        let expected = key.authenticationCode(Self.message)
        let tags = await withTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<64 { group.addTask { key.authenticationCode(Self.message) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(tags.allSatisfy { $0 == expected })
    }
}
