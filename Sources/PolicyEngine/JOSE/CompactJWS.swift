/// A JWS in compact serialization (RFC 7515 §7.1), split and decoded once.
///
/// Parsing checks structure only — exactly three parts, strict base64url, a header object with
/// a string `alg` that is not `none`, a well-formed `crit` — and keeps the signing input as the
/// original bytes, so verification hashes exactly what was signed. Whether the signature is
/// valid is a separate question, answered by `verify`.
public struct CompactJWS: Sendable {
    /// The protected header.
    public let header: JOSEHeader
    /// The algorithm named by the header.
    public let algorithm: JWSAlgorithm
    /// The decoded payload bytes.
    public let payload: [UInt8]
    /// The decoded signature bytes.
    public let signature: [UInt8]
    /// `ASCII(BASE64URL(header) '.' BASE64URL(payload))`, the bytes the signature covers.
    public let signingInput: [UInt8]

    /// Parses a compact JWS from text.
    public init(_ token: some StringProtocol, limits: TokenLimits = .standard) throws(JOSEError) {
        self = try ContiguousBytes.with(token.utf8) { buffer throws(JOSEError) in try CompactJWS(buffer, limits: limits) }
    }

    /// Parses a compact JWS from its ASCII bytes.
    public init(_ bytes: UnsafeBufferPointer<UInt8>, limits: TokenLimits = .standard) throws(JOSEError) {
        let (dots, header) = try CompactSerialization.split(bytes, parts: 3, what: "JWS", limits: limits)
        self.header = header
        let headerObject = header.object
        algorithm = try JWSAlgorithm(name: header.algorithmName)
        if let b64 = headerObject["b64"], b64 != .bool(true) {
            throw JOSEError(.unsupportedHeader, "unencoded payloads (b64: false, RFC 7797) are not accepted")
        }
        payload = try CompactSerialization.decode(bytes, dots[0] + 1..<dots[1], part: "payload")
        signature = try CompactSerialization.decode(bytes, dots[1] + 1..<bytes.count, part: "signature")
        signingInput = Array(bytes[0..<dots[1]])
    }

    /// The payload parsed as a JSON object: the claims of a JWT.
    public func claims(limits: TokenLimits = .standard) throws(JOSEError) -> JSONObject {
        try JSONParser(maxDepth: limits.maxJSONDepth).parseObject(payload, what: "the JWT payload")
    }

    /// Whether the signature verifies with `key`. Throws when the key may not be used for this
    /// token's algorithm; returns false when it may but the signature is wrong.
    public func verify(with key: JWK) throws(JOSEError) -> Bool {
        let verifier = try key.verifier(for: algorithm)
        return signature.withUnsafeBytes { sig in
            signingInput.withUnsafeBytes { verifier.verify(signature: sig, message: $0) }
        }
    }

    /// The key of `keys` that verifies the signature, chosen by `kid` when the header has one;
    /// nil when a candidate exists but none verifies. Throws when no key may be tried.
    public func verify(with keys: JWKSet, requireKid: Bool = false) throws(JOSEError) -> JWK? {
        for key in try keys.candidates(for: algorithm, kid: header.kid, requireKid: requireKid) {
            if try verify(with: key) { return key }
        }
        return nil
    }

    /// Signs `payload` with `key` and returns the compact serialization.
    ///
    /// `header` holds extra parameters; `alg` is set from `algorithm`.
    public static func sign(payload: [UInt8], header: JSONObject = JSONObject(), algorithm: JWSAlgorithm, key: JWK) throws(JOSEError) -> String {
        var fullHeader = JSONObject(members: [("alg", .string(algorithm.rawValue))])
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
    static func split(_ bytes: UnsafeBufferPointer<UInt8>, parts: Int, what: String, limits: TokenLimits) throws(JOSEError) -> (dots: [Int], header: JOSEHeader) {
        guard bytes.count <= limits.maxTokenBytes else {
            throw JOSEError(.tokenTooLarge, "token of \(bytes.count) bytes exceeds the limit of \(limits.maxTokenBytes)")
        }
        let dots = dotPositions(bytes, expected: parts - 1)
        guard dots.count == parts - 1 else {
            throw JOSEError(.malformedToken, partCountMessage(found: dots.count + 1, expected: parts, what: what))
        }
        guard dots[0] > 0 else { throw JOSEError(.malformedToken, "the \(what) header part is empty") }
        let headerBytes = try decode(bytes, 0..<dots[0], part: "header")
        let object = try JSONParser(maxDepth: limits.maxJSONDepth).parseObject(headerBytes, what: "the \(what) header")
        return (dots, try JOSEHeader(object: object))
    }

    /// The offsets of the '.' separators; stops counting one past `expected`.
    static func dotPositions(_ bytes: UnsafeBufferPointer<UInt8>, expected: Int) -> [Int] {
        var dots: [Int] = []
        dots.reserveCapacity(expected)
        for index in bytes.indices where bytes[index] == UInt8(ascii: ".") {
            dots.append(index)
            if dots.count > expected { break }
        }
        return dots
    }

    static func partCountMessage(found: Int, expected: Int, what: String) -> String {
        let shape = found > expected ? "more than \(expected)" : "\(found)"
        var message = "a compact \(what) has exactly \(expected) dot-separated parts, found \(shape)"
        if found == 1, expected == 3 { message += " (is this a JSON serialization, or not a token at all?)" }
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
}
