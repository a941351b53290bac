internal import CBase64URL

/// Strict base64url (RFC 4648 §5) without padding, as JOSE requires (RFC 7515 §2).
///
/// Decoding rejects padding, the `+` and `/` alphabet, whitespace, a length of 4n+1 and non-zero
/// trailing bits, so each byte string has exactly one accepted encoding: a re-encoded or
/// bit-flipped token can never decode to the same bytes as the original.
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0...63 for an alphabet byte, 0xFF otherwise.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// For each of the four positions of a quantum, each byte's sextet already shifted to where
    /// it lands in the quantum's 24 bits, and bit 31 set for a byte outside the alphabet: four
    /// loads and three ORs make a quantum's bits and say whether any byte was invalid.
    private static let quantumTables: [UInt32] = {
        var tables = [UInt32](repeating: 0x8000_0000, count: 4 * 256)
        for (index, byte) in alphabet.enumerated() {
            for position in 0..<4 { tables[position * 256 + Int(byte)] = UInt32(index) << (18 - 6 * position) }
        }
        return tables
    }()

    /// Encodes bytes as unpadded base64url text.
    package static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        String(decoding: encodeBytes(bytes), as: UTF8.self)
    }

    /// Encodes bytes as unpadded base64url ASCII bytes.
    package static func encodeBytes<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        var output = [UInt8]()
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next()
            let b2 = iterator.next()
            output.append(alphabet[Int(b0 >> 2)])
            output.append(alphabet[Int((b0 & 0x03) << 4 | (b1 ?? 0) >> 4)])
            if let b1 {
                output.append(alphabet[Int((b1 & 0x0F) << 2 | (b2 ?? 0) >> 6)])
                if let b2 { output.append(alphabet[Int(b2 & 0x3F)]) }
            }
        }
        return output
    }

    /// Decodes strict unpadded base64url text.
    package static func decode(_ text: some StringProtocol) throws(JOSEError) -> [UInt8] {
        try ContiguousBytes.with(text.utf8) { buffer throws(JOSEError) in try decode(buffer) }
    }

    /// Decodes strict unpadded base64url from ASCII bytes.
    package static func decode(_ input: UnsafeBufferPointer<UInt8>) throws(JOSEError) -> [UInt8] {
        let outputCount = try decodedCount(input.count)
        var canonical = false
        let output = [UInt8](writtenOnStack: outputCount) { out in canonical = decode(input, into: out) }
        guard canonical else { throw invalidInput(input) }
        return output
    }

    /// The number of bytes `count` base64url characters encode; throws for a length of 4n+1,
    /// which no byte string encodes to.
    static func decodedCount(_ count: Int) throws(JOSEError) -> Int {
        guard let decoded = decodedCountIfWhole(count) else {
            throw JOSEError(.invalidBase64URL, "base64url text of length \(count) cannot encode whole bytes")
        }
        return decoded
    }

    /// The number of bytes `count` characters encode, or nil for a length of 4n+1.
    static func decodedCountIfWhole(_ count: Int) -> Int? {
        count % 4 == 1 ? nil : count / 4 * 3 + max(count % 4 - 1, 0)
    }

    /// Decodes `input` into `out`, which holds exactly `decodedCount(input.count)` bytes, so callers
    /// can decode into storage they already own. Returns false when a character is outside the
    /// alphabet or the trailing bits are not zero; `out` is then fully written but meaningless.
    static func decode(_ input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        let count = input.count
        let remainder = count % 4
        precondition(out.count == decodedCountIfWhole(count), "the output must hold exactly the decoded bytes")
        guard count > 0, let text = input.baseAddress, let bytes = out.baseAddress else { return true }
        var invalid: UInt32 = 0
        let fullEnd = count - remainder
        // Whole blocks of sixteen by SSSE3, up to the first that holds a byte outside the
        // alphabet: the loop below goes on from there, and finds that byte.
        var index = fullEnd >= 16 ? cbase64url_decode_blocks(text, fullEnd, bytes) : 0
        var position = index / 4 * 3
        // Pointers, not subscripts: the lengths were checked once above, and this loop runs over
        // every byte of every token. Invalid bytes set bit 31; OR-ing every quantum keeps the
        // loop branch-free and reveals any of them at the end.
        quantumTables.withUnsafeBufferPointer { tables in
            let t0 = tables.baseAddress!, t1 = t0 + 256, t2 = t0 + 512, t3 = t0 + 768
            while index < fullEnd {
                let word = t0[Int(text[index])] | t1[Int(text[index + 1])] | t2[Int(text[index + 2])] | t3[Int(text[index + 3])]
                invalid |= word
                bytes[position] = UInt8(truncatingIfNeeded: word >> 16)
                bytes[position + 1] = UInt8(truncatingIfNeeded: word >> 8)
                bytes[position + 2] = UInt8(truncatingIfNeeded: word)
                index += 4
                position += 3
            }
        }
        invalid = invalid & 0x8000_0000 == 0 ? 0 : 0x80
        guard remainder != 0 else { return invalid == 0 }
        decodeTable.withUnsafeBufferPointer { tableBuffer in
            let table = tableBuffer.baseAddress!
            @inline(__always) func sextet(_ i: Int) -> UInt32 {
                let value = UInt32(table[Int(text[i])])
                invalid |= value
                return value & 0x3F
            }
            if remainder == 2 {
                let s1 = sextet(index + 1)
                bytes[position] = UInt8(truncatingIfNeeded: sextet(index) << 2 | s1 >> 4)
                if s1 & 0x0F != 0 { invalid |= 0x100 }
            } else if remainder == 3 {
                let s2 = sextet(index + 2)
                let word = sextet(index) << 10 | sextet(index + 1) << 4 | s2 >> 2
                bytes[position] = UInt8(truncatingIfNeeded: word >> 8)
                bytes[position + 1] = UInt8(truncatingIfNeeded: word)
                if s2 & 0x03 != 0 { invalid |= 0x100 }
            }
        }
        return invalid & 0x1C0 == 0
    }

    static func invalidInput(_ input: UnsafeBufferPointer<UInt8>) -> JOSEError {
        let table = decodeTable
        if let offset = input.firstIndex(where: { table[Int($0)] == 0xFF }) {
            let byte = input[offset]
            let shown = (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
            let hint = byte == UInt8(ascii: "=") ? " (padding is not allowed in base64url)"
                : (byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")) ? " (standard base64 alphabet; base64url uses '-' and '_')"
                : ""
            return JOSEError(.invalidBase64URL, "invalid base64url character \(shown) at offset \(offset)\(hint)")
        }
        return JOSEError(.invalidBase64URL, "base64url text has non-zero trailing bits (not the canonical encoding)")
    }
}
