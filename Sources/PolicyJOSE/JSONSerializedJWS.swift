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
        let document = try JSONSerializedJOSE.document(text, what: "JWS", limits: limits)
        guard case let .string(payload)? = document["payload"] else {
            throw JOSEError(.malformedToken, document["payload"] == nil
                ? "the JWS JSON serialization has no 'payload' (a detached payload is not accepted)"
                : "the JWS JSON serialization's 'payload' must be a string")
        }
        let entries = try JSONSerializedJOSE.entries(of: document, what: "JWS", general: "signatures", flattened: ["protected", "header", "signature"],
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
            let unprotected = try JSONSerializedJOSE.unprotectedHeader(entry["header"], of: name, allowed: unprotectedNames)
            for (part, value) in [("protected", protected), ("payload", payload), ("signature", signature)] where value.utf8.contains(UInt8(ascii: ".")) {
                throw JOSEError(.invalidBase64URL, "\(name): the '\(part)' member is not base64url (it holds a '.')")
            }
            var jws: CompactJWS
            do {
                jws = try CompactJWS(protected + "." + payload + "." + signature, limits: limits)
            } catch {
                throw JOSEError(error.code, "\(name): \(error.message)")
            }
            try JSONSerializedJOSE.refuseDuplicates(unprotected, in: jws.header.object, of: name)
            jws = jws.withUnprotectedKid(unprotected?["kid"]?.stringValue)
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
        var text = text
        return text.withUTF8(isJSON)
    }

    /// Whether the UTF-8 bytes `text` are a JSON serialization, as `isJSON(_: String)` tells.
    package static func isJSON(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        if let first = text.first, first > 0x20 { return first == UInt8(ascii: "{") }
        for byte in text {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D: continue
            default: return byte == UInt8(ascii: "{")
            }
        }
        return false
    }
}
