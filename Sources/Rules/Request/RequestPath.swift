import PolicyEngine

/// How a request path is normalised before `path` matchers see it (`request.path_normalization`),
/// in the spirit of Envoy's `normalize_path`, `merge_slashes` and
/// `path_with_escaped_slashes_action`.
///
/// Without normalisation `not: {path: {prefix: /admin}}` lets `/public/../admin`, `/./admin`,
/// `//admin` and `/public/%2e%2e/admin` through, while the server behind resolves each of them
/// to `/admin`. Dot segments are always removed (RFC 3986 §5.2.4), after percent-decoding, so an
/// encoded dot counts; NUL is always refused.
public struct PathNormalization: Sendable, Equatable {
    /// What an encoded `/` or `\` (`%2F`, `%5C`) in a path means.
    public enum EscapedSlashes: String, Sendable, CaseIterable {
        /// Refuse the request (the default): servers disagree on whether it splits a segment.
        case reject
        /// Keep the escape as written: the path shows `%2F`, and no segment is split.
        case keep
        /// Decode it to `/` before segments are split and dot segments removed.
        case unescape
    }

    /// Whether `//` counts as `/` (the default), as most servers route it.
    public var mergeSlashes = true
    /// What `%2F` and `%5C` mean (default: refuse the request).
    public var escapedSlashes = EscapedSlashes.reject

    /// Options; the defaults merge slashes and refuse encoded ones.
    public init(mergeSlashes: Bool = true, escapedSlashes: EscapedSlashes = .reject) {
        self.mergeSlashes = mergeSlashes
        self.escapedSlashes = escapedSlashes
    }

    /// Merge slashes, refuse encoded slashes.
    public static let standard = PathNormalization()
}

/// The normalisation itself: percent-decoding, dot-segment removal and slash merging on the path
/// as sent.
public enum RequestPath {
    /// Why a path is refused.
    public struct Refusal: Error, Sendable, Equatable {
        /// Why, in words a finding can carry.
        public let message: String
    }

    /// `raw` (the path as sent, still percent-encoded) normalised, or why it is refused.
    public static func normalize(_ raw: Substring, _ options: PathNormalization) -> Result<String, Refusal> {
        var text = String(raw)
        if options.escapedSlashes != .keep, escapedSlashOffsets(text).first != nil {
            guard options.escapedSlashes == .unescape else {
                return .failure(Refusal(message: "the path holds an encoded '/' or '\\' (%2F, %5C), which servers split differently; refused (path_normalization.escaped_slashes)"))
            }
            var bytes = Array(text.utf8)
            for offset in escapedSlashOffsets(text).reversed() { bytes.replaceSubrange(offset..<offset + 3, with: [UInt8(ascii: "/")]) }
            text = String(decoding: bytes, as: UTF8.self)
        }
        var segments: [String] = []
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        for (index, part) in parts.enumerated() where index > 0 || !part.isEmpty {
            guard let decoded = decode(part, keepingEscapedSlashes: options.escapedSlashes == .keep) else {
                return .failure(Refusal(message: "the path has a broken percent escape or is not UTF-8"))
            }
            if decoded.utf8.contains(0) { return .failure(Refusal(message: "the path holds a NUL byte (%00), which is always refused")) }
            let last = index == parts.count - 1
            switch decoded {
            case ".":
                if last { segments.append("") }
            case "..":
                if !segments.isEmpty { segments.removeLast() }
                if last { segments.append("") }
            case "" where options.mergeSlashes && !last:
                continue
            default:
                segments.append(decoded)
            }
        }
        if options.mergeSlashes {
            // A trailing empty segment is the trailing slash; merge any run before it.
            while segments.count >= 2, segments[segments.count - 1].isEmpty, segments[segments.count - 2].isEmpty { segments.removeLast() }
        }
        return .success("/" + segments.joined(separator: "/"))
    }

    /// The byte offsets of `%2F` and `%5C` (either case) in `text`.
    private static func escapedSlashOffsets(_ text: some StringProtocol) -> [Int] {
        let bytes = Array(text.utf8)
        guard bytes.count >= 3 else { return [] }
        return (0...(bytes.count - 3)).filter { offset in
            bytes[offset] == UInt8(ascii: "%")
                && ((bytes[offset + 1] == UInt8(ascii: "2") && bytes[offset + 2] | 0x20 == UInt8(ascii: "f"))
                    || (bytes[offset + 1] == UInt8(ascii: "5") && bytes[offset + 2] | 0x20 == UInt8(ascii: "c")))
        }
    }

    /// Percent-decodes a segment strictly; under `keep`, `%2F` and `%5C` stay as written (upper case).
    private static func decode(_ segment: Substring, keepingEscapedSlashes: Bool) -> String? {
        let kept = keepingEscapedSlashes ? escapedSlashOffsets(segment) : []
        guard !kept.isEmpty else { return URLText.percentDecoded(segment) }
        let bytes = Array(segment.utf8)
        var result = ""
        var start = 0
        for offset in kept {
            guard let before = URLText.percentDecoded(Substring(String(decoding: bytes[start..<offset], as: UTF8.self))) else { return nil }
            result += before + String(decoding: bytes[offset..<offset + 3], as: UTF8.self).uppercased()
            start = offset + 3
        }
        guard let tail = URLText.percentDecoded(Substring(String(decoding: bytes[start...], as: UTF8.self))) else { return nil }
        return result + tail
    }
}

extension RuleCompiler {
    /// The `request` section's `path_normalization`, read quietly by each rule that reads the path.
    mutating func pathNormalization() -> PathNormalization {
        guard let node = setting("path_normalization") else { return .standard }
        var options = PathNormalization.standard
        for field in mapping(node, allowed: ["merge_slashes", "escaped_slashes"], what: "'path_normalization'") ?? [] {
            if field.name == "merge_slashes" {
                options.mergeSlashes = bool(field.value, what: "'merge_slashes'") ?? true
            } else if let text = literalString(field.value, what: "'escaped_slashes'") {
                guard let action = PathNormalization.EscapedSlashes.exactly(text) else {
                    error(.invalidValue, "'escaped_slashes' must be reject, keep or unescape, found '\(text)'", at: field.value)
                    continue
                }
                options.escapedSlashes = action
            }
        }
        return options
    }
}
