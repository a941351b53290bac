@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// How a request path is normalised before `path` matchers see it (`request.path_normalization`),
/// in the spirit of Envoy's `normalize_path`, `merge_slashes` and
/// `path_with_escaped_slashes_action`.
///
/// Without normalisation `not: {path: {prefix: /admin}}` lets `/public/../admin`, `/./admin`,
/// `//admin` and `/public/%2e%2e/admin` through, while the server behind resolves each of them
/// to `/admin`. Dot segments are always removed (RFC 3986 §5.2.4), after percent-decoding, so an
/// encoded dot counts; NUL and a path that climbs above the root are always refused.
package struct PathNormalization: Sendable, Equatable {
    /// What an encoded `/` or `\` (`%2F`, `%5C`) in a path means.
    package enum EscapedSlashes: String, Sendable, CaseIterable {
        /// Refuse the request (the default): servers disagree on whether it splits a segment.
        case reject
        /// Keep the escape as written: the path shows `%2F`, and no segment is split.
        case keep
        /// Decode it to `/` before segments are split and dot segments removed.
        case unescape
    }

    /// What a `;` in a path segment means: servlet containers (Tomcat, Jetty) and Spring cut
    /// `;…` from each segment and read `..;` as `..`, where nginx and most others keep it as text.
    package enum PathParameters: String, Sendable, CaseIterable {
        /// Refuse the request (the default), as Spring's StrictHttpFirewall does: no reading of
        /// `/admin;x/users` or `/public/..;/admin` is safe for every server behind.
        case reject
        /// Cut `;…` from every segment before it is decoded, as servlet containers do.
        case strip
    }

    /// Whether `//` counts as `/` (the default), as most servers route it.
    package var mergeSlashes = true
    /// What `%2F` and `%5C` mean (default: refuse the request).
    package var escapedSlashes = EscapedSlashes.reject
    /// What `;` (or `%3B`) in a segment means (default: refuse the request).
    package var pathParameters = PathParameters.reject

    /// Options; the defaults merge slashes and refuse encoded slashes and path parameters.
    package init(mergeSlashes: Bool = true, escapedSlashes: EscapedSlashes = .reject, pathParameters: PathParameters = .reject) {
        self.mergeSlashes = mergeSlashes
        self.escapedSlashes = escapedSlashes
        self.pathParameters = pathParameters
    }

    /// Merge slashes, refuse encoded slashes and path parameters: what routing reads.
    package static let standard = PathNormalization()
}

/// The normalisation itself: percent-decoding, dot-segment removal and slash merging on the path
/// as sent.
package enum RequestPath {
    /// Why a path is refused.
    package struct Refusal: Error, Sendable, Equatable {
        /// `path_parameter` for a `;` under `path_parameters: reject`, else `url_invalid`.
        package let code: FindingCode
        /// Why, in words a finding can carry.
        package let message: String

        init(_ code: FindingCode = .urlInvalid, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// `raw` (the path as sent, still percent-encoded) normalised, or why it is refused.
    package static func normalize(_ raw: Substring, _ options: PathNormalization) -> Result<String, Refusal> {
        var text = String(raw)
        if text.utf8.contains(UInt8(ascii: ";")) || escapedOffsets(text, of: [(0x33, 0x62)]).first != nil {
            guard options.pathParameters == .strip else {
                return .failure(Refusal(.pathParameter, message: "the path holds ';' (a path parameter), which servers read differently (/admin;x, /..;/); refused (path_normalization.path_parameters)"))
            }
            text = text.split(separator: "/", omittingEmptySubsequences: false).map { $0.prefix { $0 != ";" } }.joined(separator: "/")
        }
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
        // Whether the segment before was empty (`//`): merged, `/a//../b` is `/b`; as RFC 3986
        // reads it, `..` removes the empty segment and it is `/a/b`. Servers differ, so refused.
        var afterEmpty = false
        for (index, part) in parts.enumerated() where index > 0 || !part.isEmpty {
            defer { afterEmpty = part.isEmpty && index > 0 }
            guard let decoded = decode(part, keepingEscapedSlashes: options.escapedSlashes == .keep) else {
                return .failure(Refusal(message: "the path has a broken percent escape or is not UTF-8"))
            }
            if decoded.utf8.contains(0) { return .failure(Refusal(message: "the path holds a NUL byte (%00), which is always refused")) }
            let last = index == parts.count - 1
            switch decoded {
            case ".":
                if last { segments.append("") }
            case ".." where options.mergeSlashes && afterEmpty:
                return .failure(Refusal(message: "the path has '..' right after '//', which servers resolve differently (merged first, or not)"))
            case "..":
                guard !segments.isEmpty else {
                    return .failure(Refusal(message: "the path climbs above the root with '..', which servers refuse or resolve differently"))
                }
                segments.removeLast()
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
        escapedOffsets(text, of: [(UInt8(ascii: "2"), UInt8(ascii: "f")), (UInt8(ascii: "5"), UInt8(ascii: "c"))])
    }

    /// The byte offsets of `%` followed by one of `escapes` (a digit, then a lower-case hex
    /// letter matched in either case).
    private static func escapedOffsets(_ text: some StringProtocol, of escapes: [(UInt8, UInt8)]) -> [Int] {
        let bytes = Array(text.utf8)
        guard bytes.count >= 3 else { return [] }
        return (0...(bytes.count - 3)).filter { offset in
            bytes[offset] == UInt8(ascii: "%") && escapes.contains { bytes[offset + 1] == $0.0 && bytes[offset + 2] | 0x20 == $0.1 }
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
        for field in mapping(node, allowed: ["merge_slashes", "escaped_slashes", "path_parameters"], what: "'path_normalization'") ?? [] {
            if field.name == "merge_slashes" {
                options.mergeSlashes = bool(field.value, what: "'merge_slashes'") ?? true
            } else if field.name == "path_parameters", let text = literalString(field.value, what: "'path_parameters'") {
                guard let action = PathNormalization.PathParameters.exactly(text) else {
                    error(.invalidValue, "'path_parameters' must be reject or strip, found '\(text)'", at: field.value)
                    continue
                }
                options.pathParameters = action
            } else if field.name == "escaped_slashes", let text = literalString(field.value, what: "'escaped_slashes'") {
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
