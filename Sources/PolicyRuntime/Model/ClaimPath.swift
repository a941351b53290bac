@_spi(RuleAuthoring) package import PolicyJOSE

/// A path into a JSON object: dotted names that walk objects only (`tenant.region`), with a
/// quoted bracket segment for names that contain dots (`["https://example.com/roles"]`).
public struct ClaimPath: Sendable, Hashable, CustomStringConvertible {
    /// The member names from the top, in order.
    package let segments: [String]

    /// A path through nested objects.
    package init(segments: [String]) {
        self.segments = segments
    }

    /// Parses `a.b`, `["x.y"].z`, `a["b.c"]`; nil for an empty or malformed path.
    package init?(parsing text: String) {
        var segments: [String] = []
        var rest = Substring(text)
        var expectSegment = true
        while !rest.isEmpty {
            if rest.hasPrefix("[") {
                let quote = rest.dropFirst().first
                guard quote == "\"" || quote == "'" else { return nil }
                let body = rest.dropFirst(2)
                guard let close = body.firstIndex(of: quote!), body[body.index(after: close)...].first == "]" else { return nil }
                let name = String(body[..<close])
                guard !name.isEmpty else { return nil }
                segments.append(name)
                rest = body[body.index(close, offsetBy: 2)...]
                expectSegment = false
            } else if rest.hasPrefix(".") {
                guard !expectSegment else { return nil }
                rest = rest.dropFirst()
                expectSegment = true
                guard !rest.isEmpty else { return nil }
            } else {
                guard expectSegment else { return nil }
                let end = rest.firstIndex { $0 == "." || $0 == "[" } ?? rest.endIndex
                let name = String(rest[..<end])
                guard !name.isEmpty else { return nil }
                segments.append(name)
                rest = rest[end...]
                expectSegment = false
            }
        }
        guard !segments.isEmpty else { return nil }
        self.segments = segments
    }

    /// The value at this path, walking objects only; nil when any step is absent or not an object.
    package func value(in object: JSONObject) -> JSONValue? {
        value(in: JSONObjectView(object))
    }

    /// The value at this path in a token's claims: the first step looks the claim up in place.
    package func value(in claims: JSONObjectView) -> JSONValue? {
        guard let first = segments.first else { return .object(claims.object) }
        guard let top = claims[first] else { return nil }
        var current = top
        for segment in segments.dropFirst() {
            guard case let .object(members) = current, let next = members[segment] else { return nil }
            current = next
        }
        return current
    }

    public var description: String {
        var text = ""
        for segment in segments {
            if segment.contains(".") || segment.contains("[") {
                text += "[\"\(segment)\"]"
            } else {
                text += text.isEmpty ? segment : ".\(segment)"
            }
        }
        return text
    }
}
