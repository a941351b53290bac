/// A JWS in JSON serialization (RFC 7515 §7.2), general or flattened, read as the compact JWSs
/// it is made of: each signature's `protected.payload.signature`, whose signing input is the
/// same bytes (RFC 7515 §5.1), parsed and checked as any compact JWS is.
///
/// The stance on unprotected headers (RFC 8725 §3.1 wants every parameter that decides
/// verification signed): a signature's `header` may hold only `kid`, which chooses the key the
/// signature must then verify with; every other parameter must be in `protected`, which is
/// therefore required. A name in both is refused (RFC 7515 §7.2.1 wants them disjoint), and so
/// are both `signatures` and a flattened member, an empty `signatures`, a detached payload and
/// more than `maxSignatures` signatures. Members the RFC does not define are ignored, as it asks.
package enum JSONSerializedJWS {
    /// The most signatures read: each may cost a verification.
    package static let maxSignatures = 8

    /// The header members a signature may leave unprotected.
    static let unprotectedNames: Set<String> = ["kid"]

    /// The signatures of `text`, first to last, each a compact JWS whose `unprotectedKid` is
    /// its unprotected `kid`.
    package static func signatures(_ text: some StringProtocol, limits: TokenLimits) throws(JOSEError) -> [CompactJWS] {
        let document = try JSONSerialization.document(text, what: "JWS", limits: limits)
        guard case let .string(payload)? = document["payload"] else {
            throw JOSEError(.malformedToken, document["payload"] == nil
                ? "the JWS JSON serialization has no 'payload' (a detached payload is not accepted)"
                : "the JWS JSON serialization's 'payload' must be a string")
        }
        let entries = try JSONSerialization.entries(of: document, what: "JWS", general: "signatures", flattened: ["protected", "header", "signature"],
                                                    flattenedRequired: "signature", most: maxSignatures)
        var signatures: [CompactJWS] = []
        for (index, entry) in entries.enumerated() {
            let name = entries.count == 1 ? "the JWS JSON serialization's signature" : "signature \(index + 1) of the JWS JSON serialization"
            guard case let .string(protected)? = entry["protected"] else {
                throw JOSEError(entry["protected"] == nil ? .invalidHeader : .malformedToken, entry["protected"] == nil
                    ? "\(name) has no 'protected' header: its alg would not be signed"
                    : "\(name)'s 'protected' must be a string")
            }
            guard case let .string(signature)? = entry["signature"] else { throw JOSEError(.malformedToken, "\(name) has no 'signature' string") }
            let unprotected = try JSONSerialization.unprotectedHeader(entry["header"], of: name, allowed: unprotectedNames)
            for (part, value) in [("protected", protected), ("payload", payload), ("signature", signature)] where value.utf8.contains(UInt8(ascii: ".")) {
                throw JOSEError(.invalidBase64URL, "\(name): the '\(part)' member is not base64url (it holds a '.')")
            }
            var jws: CompactJWS
            do {
                jws = try CompactJWS(protected + "." + payload + "." + signature, limits: limits)
            } catch {
                throw JOSEError(error.code, "\(name): \(error.message)")
            }
            try JSONSerialization.refuseDuplicates(unprotected, in: jws.header.object, of: name)
            jws.unprotectedKid = unprotected?["kid"]?.stringValue
            if unprotected?["kid"] != nil, jws.unprotectedKid == nil {
                throw JOSEError(.invalidHeader, "\(name): header 'kid' must be a string")
            }
            signatures.append(jws)
        }
        return signatures
    }

    /// Whether `text` is a JSON serialization rather than a compact one: it opens an object.
    ///
    /// Not generic: every presented token passes here, and an unspecialized `StringProtocol`
    /// walk across the module boundary cost some 1,000 instructions a token.
    package static func isJSON(_ text: String) -> Bool {
        let utf8 = text.utf8
        if let first = utf8.first, first > 0x20 { return first == UInt8(ascii: "{") }
        for byte in utf8 {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D: continue
            default: return byte == UInt8(ascii: "{")
            }
        }
        return false
    }
}

/// What the JWS and JWE JSON serializations share.
enum JSONSerialization {
    /// The top-level object of a JSON serialization, within the token's size and depth bounds.
    static func document(_ text: some StringProtocol, what: String, limits: TokenLimits) throws(JOSEError) -> JSONObject {
        let count = text.utf8.count
        guard count <= limits.maxTokenBytes else {
            throw JOSEError(.tokenTooLarge, "token of \(count) bytes exceeds the limit of \(limits.maxTokenBytes)")
        }
        return try JSONParser(maxDepth: limits.maxJSONDepth).parseObject(Array(text.utf8), what: "the \(what) JSON serialization")
    }

    /// An unprotected header member (`header`, `unprotected`), nil when absent; refused when it
    /// is not an object or holds a name not in `allowed`.
    static func unprotectedHeader(_ value: JSONValue?, of name: String, allowed: Set<String>) throws(JOSEError) -> JSONObject? {
        guard let value else { return nil }
        guard case let .object(header) = value else { throw JOSEError(.malformedToken, "\(name)'s unprotected header must be an object") }
        if let refused = header.members.first(where: { !allowed.containsExactly($0.name) }) {
            throw JOSEError(.unsupportedHeader, "\(name) leaves '\(refused.name)' unprotected; only \(allowed.sorted().joined(separator: ", ")) may be, so that every parameter a rule reads is integrity-protected")
        }
        return header
    }

    /// The per-signature or per-recipient objects of `document`: the `general` array's entries,
    /// or the document itself when it is flattened (when one of `flattened` is present, or
    /// always when `flattenedRequired` is nil). Both forms at once, an empty or overlong array,
    /// and entries that are not objects are refused.
    static func entries(of document: JSONObject, what: String, general: String, flattened: [String], flattenedRequired: String?,
                        most: Int) throws(JOSEError) -> [JSONObject] {
        let present = flattened.filter { document[$0] != nil }
        switch document[general] {
        case let .array(items)?:
            guard present.isEmpty else {
                throw JOSEError(.malformedToken, "the \(what) JSON serialization has both '\(general)' (general) and '\(present[0])' (flattened)")
            }
            guard !items.isEmpty else { throw JOSEError(.malformedToken, "the \(what) JSON serialization's '\(general)' is empty") }
            guard items.count <= most else {
                throw JOSEError(.malformedToken, "the \(what) JSON serialization has \(items.count) \(general), more than the \(most) accepted")
            }
            return try items.map { item throws(JOSEError) in
                guard case let .object(entry) = item else { throw JOSEError(.malformedToken, "each entry of '\(general)' must be an object") }
                return entry
            }
        case nil:
            if let required = flattenedRequired, present.isEmpty {
                throw JOSEError(.malformedToken, "the \(what) JSON serialization has neither '\(general)' nor '\(required)'")
            }
            return [document]
        case _?:
            throw JOSEError(.malformedToken, "the \(what) JSON serialization's '\(general)' must be an array")
        }
    }

    /// Refuses a name of `unprotected` that `protected` also holds (RFC 7515 §7.2.1, RFC 7516 §7.2.1).
    static func refuseDuplicates(_ unprotected: JSONObject?, in protected: JSONObject, of name: String) throws(JOSEError) {
        guard let duplicate = unprotected?.members.first(where: { protected[$0.name] != nil }) else { return }
        throw JOSEError(.invalidHeader, "\(name) has '\(duplicate.name)' in both its protected and unprotected headers (RFC 7515 §7.2.1)")
    }
}
