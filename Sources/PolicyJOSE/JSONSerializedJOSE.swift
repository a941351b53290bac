/// What the JWS and JWE JSON serializations share.
enum JSONSerializedJOSE {
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
