/// Comparisons of untrusted text by code points, as RFC 7519 §7.3 and RFC 3986 §6.2.1 require.
///
/// Swift's `String ==`, `hasPrefix`, `Hashable` and `switch` on strings apply Unicode canonical
/// equivalence: U+212A KELVIN SIGN equals `K`, and an NFD spelling equals its NFC twin. An
/// issuer, audience, nonce, `kid` or claim that merely looks like the expected one must not
/// pass, so every comparison of text from a token, request, callback or key document goes
/// through these, which compare UTF-8 bytes.
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

extension String {
    /// Whether both hold the same code points (the same UTF-8 bytes).
    ///
    /// Exact equality implies canonical equivalence, so `==` (whose fast paths compare raw bits
    /// and memory) settles every mismatch; only a match is confirmed byte by byte. Claim names
    /// are looked up many times per token, and most lookups are mismatches.
    @_spi(RuleAuthoring) public func isExactly(_ other: String) -> Bool {
        guard self == other else { return false }
        let count = utf8.count
        guard count == other.utf8.count else { return false }
        let same = utf8.withContiguousStorageIfAvailable { left in
            other.utf8.withContiguousStorageIfAvailable { right in count == 0 || memcmp(left.baseAddress!, right.baseAddress!, count) == 0 }
        }
        if let same, let result = same { return result }
        return utf8.elementsEqual(other.utf8)
    }
}

extension StringProtocol {
    /// Whether both hold the same code points (the same UTF-8 bytes).
    @_spi(RuleAuthoring) public func isExactly(_ other: some StringProtocol) -> Bool {
        let (lhs, rhs) = (utf8, other.utf8)
        guard lhs.count == rhs.count else { return false }
        let fast = lhs.withContiguousStorageIfAvailable { left in
            rhs.withContiguousStorageIfAvailable { right in left.elementsEqual(right) }
        }
        if let fast, let result = fast { return result }
        return lhs.elementsEqual(rhs)
    }

    /// Whether the text starts with the code points of `prefix`.
    @_spi(RuleAuthoring) public func hasExactPrefix(_ prefix: some StringProtocol) -> Bool {
        utf8.starts(with: prefix.utf8)
    }

    /// Whether the text ends with the code points of `suffix`.
    @_spi(RuleAuthoring) public func hasExactSuffix(_ suffix: some StringProtocol) -> Bool {
        let (text, tail) = (utf8, suffix.utf8)
        guard tail.count <= text.count else { return false }
        return text.dropFirst(text.count - tail.count).elementsEqual(tail)
    }
}

extension Sequence where Element: StringProtocol {
    /// Whether some element holds exactly the code points of `text`. Inlinable, as the next: a
    /// generic called from another module is otherwise not specialized (an unspecialized call
    /// walked a one-element array in ~1,400 instructions).
    @inlinable @_spi(RuleAuthoring) public func containsExactly(_ text: some StringProtocol) -> Bool {
        contains { $0.isExactly(text) }
    }
}

extension Sequence<String> {
    /// Whether some element holds exactly the code points of `text` (the fast `String` path).
    @inlinable @_spi(RuleAuthoring) public func containsExactly(_ text: String) -> Bool {
        contains { $0.isExactly(text) }
    }
}

extension RawRepresentable where Self: CaseIterable, RawValue == String {
    /// The case whose raw value is exactly `text`: a synthesized `init(rawValue:)` switches on
    /// strings and so accepts canonically equivalent spellings (`ES256K` with a Kelvin sign),
    /// which the second check refuses.
    @_spi(RuleAuthoring) public static func exactly(_ text: String) -> Self? {
        guard let found = Self(rawValue: text), found.rawValue.isExactly(text) else { return nil }
        return found
    }
}
