/// A JWE in JSON serialization (RFC 7516 §7.2), general or flattened, read as one `CompactJWE`
/// per recipient: the shared IV, ciphertext and tag, the recipient's encrypted key, and the
/// additional authenticated data `ASCII(protected)` or `ASCII(protected '.' aad)` (§5.1 step 14).
///
/// The stance on unprotected headers: the shared (`unprotected`) and per-recipient (`header`)
/// headers may hold only what selects and unwraps the recipient's key — `alg`, `kid`, `epk`,
/// `apu`, `apv`, `iv`, `tag` — as RFC 7516's multi-recipient examples put them there; `enc`,
/// `typ`, `cty`, `crit` and anything a rule reads must be in `protected`, which is therefore
/// required, and rules read only it. A name in two of the headers is refused (§7.2.1), and so
/// are both `recipients` and a flattened member, an empty `recipients` and more than
/// `maxRecipients` recipients. Members the RFC does not define are ignored, as it asks.
package enum JSONSerializedJWE {
    /// The most recipients read: each may cost a key unwrapping.
    package static let maxRecipients = 8

    /// The header members a JWE may leave unprotected.
    static let unprotectedNames: Set<String> = ["alg", "kid", "epk", "apu", "apv", "iv", "tag"]

    /// The recipients of `text`, first to last.
    package static func recipients(_ text: some StringProtocol, limits: TokenLimits) throws(JOSEError) -> [CompactJWE] {
        let document = try JSONSerializedJOSE.document(text, what: "JWE", limits: limits)
        guard case let .string(protected)? = document["protected"] else {
            throw JOSEError(document["protected"] == nil ? .invalidHeader : .malformedToken, document["protected"] == nil
                ? "the JWE JSON serialization has no 'protected' header: its enc would not be integrity-protected"
                : "the JWE JSON serialization's 'protected' must be a string")
        }
        let protectedBytes = try decode(protected, member: "protected")
        let protectedObject = try JSONParser(maxDepth: limits.maxJSONDepth).parseObject(protectedBytes, what: "the JWE protected header")
        let shared = try JSONSerializedJOSE.unprotectedHeader(document["unprotected"], of: "the JWE JSON serialization's shared header", allowed: unprotectedNames)
        try JSONSerializedJOSE.refuseDuplicates(shared, in: protectedObject, of: "the JWE")

        let entries = try JSONSerializedJOSE.entries(of: document, what: "JWE", general: "recipients", flattened: ["header", "encrypted_key"],
                                                    flattenedRequired: nil, most: maxRecipients)

        guard document["ciphertext"] != nil else { throw JOSEError(.malformedToken, "the JWE JSON serialization has no 'ciphertext'") }
        let iv = try optional(document, "iv")
        let ciphertext = try optional(document, "ciphertext")
        let tag = try optional(document, "tag")
        var additionalData = Array(protected.utf8)
        if document["aad"] != nil {
            guard case let .string(aad)? = document["aad"] else { throw JOSEError(.malformedToken, "the JWE JSON serialization's 'aad' must be a string") }
            _ = try decode(aad, member: "aad")
            additionalData += [UInt8(ascii: ".")] + Array(aad.utf8)
        }

        var recipients: [CompactJWE] = []
        for (index, entry) in entries.enumerated() {
            let name = entries.count == 1 ? "the JWE JSON serialization's recipient" : "recipient \(index + 1) of the JWE JSON serialization"
            let own = try JSONSerializedJOSE.unprotectedHeader(entry["header"], of: name, allowed: unprotectedNames)
            try JSONSerializedJOSE.refuseDuplicates(own, in: protectedObject, of: name)
            if let shared { try JSONSerializedJOSE.refuseDuplicates(own, in: shared, of: name) }
            var joint = protectedObject
            for member in (shared?.members ?? []) + (own?.members ?? []) { joint.set(member.name, member.value) }
            let header = try JOSEHeader(object: joint)
            recipients.append(try CompactJWE(header: header, protectedHeader: JOSEHeader(protected: protectedObject, algorithmName: header.algorithmName),
                                             encryptedKey: optional(entry, "encrypted_key"), initializationVector: iv, ciphertext: ciphertext,
                                             authenticationTag: tag, additionalData: additionalData))
        }
        return recipients
    }

    /// The flattened JSON serialization of a compact JWE: the same parts under their member names.
    package static func flattened(_ compact: String) -> JSONObject {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var object = JSONObject()
        for (name, index) in [("protected", 0), ("encrypted_key", 1), ("iv", 2), ("ciphertext", 3), ("tag", 4)]
            where index < parts.count && (!parts[index].isEmpty || name == "ciphertext") {
            object.set(name, .string(parts[index]))
        }
        return object
    }

    private static func optional(_ object: JSONObject, _ member: String) throws(JOSEError) -> [UInt8] {
        guard let value = object[member] else { return [] }
        guard case let .string(text) = value else { throw JOSEError(.malformedToken, "the JWE JSON serialization's '\(member)' must be a string") }
        return try decode(text, member: member)
    }

    private static func decode(_ text: String, member: String) throws(JOSEError) -> [UInt8] {
        do {
            return try Base64URL.decode(text)
        } catch {
            throw JOSEError(.invalidBase64URL, "the JWE JSON serialization's '\(member)' member: \(error.message)")
        }
    }
}
