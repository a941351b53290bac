internal import PolicyCrypto

/// The SHA-256 of some bytes, as four words: what the caches key content by.
///
/// A remembered answer is keyed by what decided it (SECURITY.md), and a digest that no one can
/// make collide stands for those bytes at 32 bytes whatever their size: a remembered signature
/// check of an RS256 token takes 64 bytes of key (its signed bytes' digest and its key set's)
/// instead of the 700 bytes of signing input and signature, so the same memory remembers six
/// times as many tokens.
package struct ContentDigest: Hashable, Sendable {
    private let words: (UInt64, UInt64, UInt64, UInt64)

    /// The digest of `bytes`.
    package init(of bytes: UnsafeRawBufferPointer) {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { DigestAlgorithm.sha256.hash(bytes, into: $0) }
        self.words = words
    }

    /// The digest of `bytes`.
    package init(of bytes: [UInt8]) {
        self = bytes.withUnsafeBytes { ContentDigest(of: $0) }
    }

    /// The digest of `bytes`.
    package init(of bytes: ArraySlice<UInt8>) {
        self = bytes.withUnsafeBytes { ContentDigest(of: $0) }
    }

    /// The 32 bytes of the digest, for a store outside the process.
    package var bytes: [UInt8] { withUnsafeBytes(of: words) { Array($0) } }

    /// The digest whose bytes are `bytes`; nil unless there are 32.
    package init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { $0.copyBytes(from: bytes) }
        self.words = words
    }

    /// The digest's first 128 bits: enough to tell apart the tokens of any log (a collision
    /// among 10^9 of them has a chance near 10^-21), in half the memory.
    package var first128Bits: (UInt64, UInt64) { (words.0, words.1) }

    /// 64 bits of the digest other than those a hash table reads: a frequency sketch's hash.
    package var sketchHash: UInt64 { words.1 }

    package static func == (lhs: ContentDigest, rhs: ContentDigest) -> Bool {
        lhs.words == rhs.words
    }

    /// One word is enough: the digest's bits are uniform, and equality compares all four.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
    }
}
