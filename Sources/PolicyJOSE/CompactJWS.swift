#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif
internal import PolicyCrypto

/// A JWS in compact serialization (RFC 7515 §7.1), split and decoded once.
///
/// Parsing checks structure only — exactly three parts, strict base64url, a header object with
/// a string `alg` that is not `none`, a well-formed `crit` — and keeps the signing input as the
/// original bytes, so verification hashes exactly what was signed. Whether the signature is
/// valid is a separate question, answered by `verify`.
package struct CompactJWS: Sendable {
    /// The protected header.
    package let header: JOSEHeader
    /// The algorithm named by the header.
    package let algorithm: JWSAlgorithm
    /// The signing input, the decoded signature and the decoded payload, one after another: one
    /// allocation for the three, and no object around it (a copy of the token retains this
    /// array and the header's one object), since per-token allocations, not parsing, dominate
    /// the cost of a fast signature check.
    private let storage: [UInt8]
    private let signingInputCount: Int
    /// Where the signature ends and the payload starts.
    private let signatureEnd: Int
    /// The decoded payload bytes.
    package var payload: ArraySlice<UInt8> { storage[signatureEnd...] }
    /// The `kid` of the signature's unprotected header, in a JWS JSON serialization
    /// (`JSONSerializedJWS`): it chooses the key, which the signature then proves.
    package let unprotectedKid: String?

    /// The key ID that chooses the verification key: the protected header's `kid`, or the
    /// unprotected one of a JSON-serialized signature (never both). Stored, since every check
    /// reads it and a lookup in the header from another module is a call.
    package let keyID: String?

    /// Whether the protected header says the payload is a JWT (`cty: JWT`): asked of the JWS, not
    /// of its header from another module, where reading the header copied it.
    package var holdsJWT: Bool { header.holdsJWT }

    /// `ASCII(BASE64URL(header) '.' BASE64URL(payload))`, the bytes the signature covers.
    package var signingInput: ArraySlice<UInt8> { storage[..<signingInputCount] }
    /// The decoded signature bytes.
    package var signature: ArraySlice<UInt8> { storage[signingInputCount..<signatureEnd] }
    /// The signing input and the signature together: what identifies a signature check.
    package var signedBytes: ArraySlice<UInt8> { storage[..<signatureEnd] }

    /// Parses a compact JWS from text.
    ///
    /// - Parameter headers: headers decoded before, which answer for a header text they hold.
    package init(_ token: some StringProtocol, limits: TokenLimits = .standard, headers: JOSEHeaderCache? = nil) throws(JOSEError) {
        self = try ContiguousBytes.with(token.utf8) { buffer throws(JOSEError) in try CompactJWS(buffer, limits: limits, headers: headers) }
    }

    /// Parses a compact JWS from a `String`: what every evaluation calls, not generic, so that
    /// no generic metadata is looked up per token.
    package init(_ token: String, limits: TokenLimits = .standard, headers: JOSEHeaderCache? = nil) throws(JOSEError) {
        self = try ContiguousBytes.with(token) { buffer throws(JOSEError) in try CompactJWS(buffer, limits: limits, headers: headers) }
    }

    /// Parses a compact JWS from its ASCII bytes.
    package init(_ bytes: UnsafeBufferPointer<UInt8>, limits: TokenLimits = .standard, headers: JOSEHeaderCache? = nil) throws(JOSEError) {
        let (dots, header) = try CompactSerialization.split(bytes, parts: 3, what: "JWS", limits: limits, headers: headers)
        let algorithm: JWSAlgorithm
        if let known = header.signatureAlgorithm {
            algorithm = known
        } else {
            algorithm = try JWSAlgorithm(name: header.algorithmName)
        }
        if !header.encodesPayload {
            throw JOSEError(.unsupportedHeader, "unencoded payloads (b64: false, RFC 7797) are not accepted")
        }
        // Refused in the order of the parts: the payload's text, then the signature's.
        let payloadText = UnsafeBufferPointer(rebasing: bytes[dots[0] + 1..<dots[1]])
        let payloadCount = try CompactSerialization.decodedCount(payloadText, part: "payload")
        let signatureText = UnsafeBufferPointer(rebasing: bytes[(dots[1] + 1)...])
        let signatureCount = Base64URL.decodedCountIfWhole(signatureText.count)
        let prefix = UnsafeBufferPointer(rebasing: bytes[..<dots[1]])
        let signatureEnd = prefix.count + (signatureCount ?? 0)
        var payloadCanonical = false, signatureCanonical = false
        let storage = [UInt8](writtenOnStack: signatureEnd + payloadCount) { out in
            _ = UnsafeMutableBufferPointer(rebasing: out[..<prefix.count]).initialize(fromContentsOf: prefix)
            payloadCanonical = Base64URL.decode(payloadText, into: UnsafeMutableBufferPointer(rebasing: out[signatureEnd...]))
            if signatureCount != nil {
                signatureCanonical = Base64URL.decode(signatureText, into: UnsafeMutableBufferPointer(rebasing: out[prefix.count..<signatureEnd]))
            }
        }
        guard payloadCanonical else { throw CompactSerialization.invalid(payloadText, part: "payload") }
        if signatureCount == nil { _ = try CompactSerialization.decodedCount(signatureText, part: "signature") }
        guard signatureCanonical else { throw CompactSerialization.invalid(signatureText, part: "signature") }
        self.header = header
        self.algorithm = algorithm
        self.storage = storage
        signingInputCount = prefix.count
        self.signatureEnd = signatureEnd
        keyID = header.kid
        unprotectedKid = nil
    }

    /// This JWS with `kid` as the `kid` of its signature's unprotected header, which chooses the
    /// key when the protected header names none.
    ///
    /// A new value rather than a setter: with every stored property a `let`, the parsing
    /// initializer builds its value once; with a `var` among them it built two and copied one
    /// (a retain and release of each reference, every token).
    package func withUnprotectedKid(_ kid: String?) -> CompactJWS {
        CompactJWS(header: header, algorithm: algorithm, storage: storage, signingInputCount: signingInputCount, signatureEnd: signatureEnd,
                   unprotectedKid: kid)
    }

    private init(header: JOSEHeader, algorithm: JWSAlgorithm, storage: [UInt8], signingInputCount: Int, signatureEnd: Int, unprotectedKid: String?) {
        self.header = header
        self.algorithm = algorithm
        self.storage = storage
        self.signingInputCount = signingInputCount
        self.signatureEnd = signatureEnd
        self.unprotectedKid = unprotectedKid
        keyID = header.kid ?? unprotectedKid
    }

    /// The payload parsed as a JSON object: the claims of a JWT.
    package func claims(limits: TokenLimits = .standard) throws(JOSEError) -> JSONObject {
        try Self.claimsSet(payload, limits: limits, what: "the JWS payload")
    }

    /// A payload read as a JWT Claims Set (RFC 7519 §7.2 step 10): a JSON object. Anything else is
    /// `malformed_token` saying so, without quoting the payload (for a JWE, it was encrypted).
    package static func claimsSet(_ payload: some Collection<UInt8>, limits: TokenLimits, what: String) throws(JOSEError) -> JSONObject {
        do {
            return try JSONParser(maxDepth: limits.maxJSONDepth).parseObject(payload, what: what)
        } catch where error.code == .jsonTooDeep {
            throw error
        } catch {
            let reason = error.message.contains("must be a JSON object") ? error.message : error.messageWithoutContent
            throw JOSEError(.malformedToken, "\(what) is not a JWT claims set (RFC 7519 §7.2): \(reason)")
        }
    }

    /// Whether the signature verifies with `key`. Throws when the key may not be used for this
    /// token's algorithm; returns false when it may but the signature is wrong.
    package func verify(with key: JWK) throws(JOSEError) -> Bool {
        try storage.withUnsafeBufferPointer { bytes throws(JOSEError) in
            try key.verify(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[signingInputCount..<signatureEnd])),
                           over: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[..<signingInputCount])), algorithm: algorithm)
        }
    }

    /// The key of `keys` that verifies the signature, chosen by `kid` when the header has one;
    /// nil when a candidate exists but none verifies. Throws when no key may be tried.
    package func verify(with keys: JWKSet, requireKid: Bool = false) throws(JOSEError) -> JWK? {
        for key in try keys.candidates(for: algorithm, kid: keyID, requireKid: requireKid) {
            if try verify(with: key) { return key }
        }
        return nil
    }

    /// Signs `payload` with `key` and returns the compact serialization.
    ///
    /// `header` holds extra parameters; `alg` is set from `algorithm`.
    package static func sign(payload: [UInt8], header: JSONObject = JSONObject(), algorithm: JWSAlgorithm, key: JWK) throws(JOSEError) -> String {
        var fullHeader = JSONObject(["alg": .string(algorithm.rawValue)])
        for member in header.members where member.name != "alg" { fullHeader.set(member.name, member.value) }
        let signingInput = Base64URL.encodeBytes(JSONValue.object(fullHeader).serializedBytes())
            + [UInt8(ascii: ".")] + Base64URL.encodeBytes(payload)
        let signature = try key.sign(signingInput, algorithm: algorithm)
        return String(decoding: signingInput, as: UTF8.self) + "." + Base64URL.encode(signature)
    }
}

/// Splitting and decoding shared by compact JWS and JWE.
enum CompactSerialization {
    /// Checks the size cap and the part count, and decodes and parses the protected header:
    /// the steps JWS and JWE share before their own parts.
    static func split(_ bytes: UnsafeBufferPointer<UInt8>, parts: Int, what: String, limits: TokenLimits,
                      headers: JOSEHeaderCache? = nil) throws(JOSEError) -> (dots: DotPositions, header: JOSEHeader) {
        guard bytes.count <= limits.maxTokenBytes else {
            throw JOSEError(.tokenTooLarge, "token of \(bytes.count) bytes exceeds the limit of \(limits.maxTokenBytes)")
        }
        // A JSON serialization (RFC 7515 §7.2, RFC 7516 §7.2) starts with '{' whatever it holds:
        // say so, instead of counting the dots its values happen to contain.
        if let first = bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }), first == UInt8(ascii: "{") {
            throw JOSEError(.malformedToken, "this is JSON, not a compact \(what): a JSON serialization is accepted only as the token presented, never nested in one")
        }
        let dots = DotPositions(bytes, expected: parts - 1)
        guard dots.count == parts - 1 else {
            throw JOSEError(.malformedToken, partCountMessage(found: dots.count + 1, expected: parts, what: what))
        }
        guard dots[0] > 0 else { throw JOSEError(.malformedToken, "the \(what) header part is empty") }
        let headerText = UnsafeBufferPointer(rebasing: bytes[..<dots[0]])
        guard let headers else { return (dots, try header(headerText, what: what, limits: limits)) }
        return (dots, try headers.header(headerText, maxDepth: limits.maxJSONDepth) { () throws(JOSEError) in try header(headerText, what: what, limits: limits) })
    }

    /// The protected header whose base64url text is `text`.
    private static func header(_ text: UnsafeBufferPointer<UInt8>, what: String, limits: TokenLimits) throws(JOSEError) -> JOSEHeader {
        let headerCount = try decodedCount(text, part: "header")
        let object = try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: headerCount) { buffer throws(JOSEError) in
            guard Base64URL.decode(text, into: buffer) else { throw invalid(text, part: "header") }
            return try JSONParser(maxDepth: limits.maxJSONDepth).parseObject(UnsafeBufferPointer(buffer), what: "the \(what) header")
        }
        return try JOSEHeader(object: object)
    }

    static func partCountMessage(found: Int, expected: Int, what: String) -> String {
        let shape = found > expected ? "more than \(expected)" : "\(found)"
        var message = "a compact \(what) has exactly \(expected) dot-separated parts, found \(shape)"
        if found == 1 { message += " (is this a token at all?)" }
        if found == 5, expected == 3 { message += " (this looks like a JWE)" }
        if found == 3, expected == 5 { message += " (this looks like a JWS)" }
        return message
    }

    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, part: String) throws(JOSEError) -> [UInt8] {
        do {
            return try Base64URL.decode(UnsafeBufferPointer(rebasing: bytes[range]))
        } catch {
            throw JOSEError(.invalidBase64URL, "the \(part) part: \(error.message)")
        }
    }

    static func decodedCount(_ text: UnsafeBufferPointer<UInt8>, part: String) throws(JOSEError) -> Int {
        do {
            return try Base64URL.decodedCount(text.count)
        } catch {
            throw JOSEError(.invalidBase64URL, "the \(part) part: \(error.message)")
        }
    }

    static func invalid(_ text: UnsafeBufferPointer<UInt8>, part: String) -> JOSEError {
        JOSEError(.invalidBase64URL, "the \(part) part: \(Base64URL.invalidInput(text).message)")
    }
}

/// The offsets of the '.' separators of a compact serialization, found without allocating.
struct DotPositions {
    private var offsets: (Int, Int, Int, Int) = (0, 0, 0, 0)
    /// How many dots were found, counting at most one past the expected number.
    private(set) var count = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>, expected: Int) {
        precondition(expected <= 4, "compact serializations have at most 5 parts")
        guard let base = bytes.baseAddress else { return }
        // memchr, which reads a vector at a time: tokens run to kilobytes and hold only two to
        // four dots.
        var index = 0
        while index < bytes.count, let found = memchr(base + index, Int32(UInt8(ascii: ".")), bytes.count - index) {
            let offset = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            if count == expected { count += 1; return }
            switch count {
            case 0: offsets.0 = offset
            case 1: offsets.1 = offset
            case 2: offsets.2 = offset
            default: offsets.3 = offset
            }
            count += 1
            index = offset + 1
        }
    }

    subscript(position: Int) -> Int {
        switch position {
        case 0: offsets.0
        case 1: offsets.1
        case 2: offsets.2
        default: offsets.3
        }
    }
}
