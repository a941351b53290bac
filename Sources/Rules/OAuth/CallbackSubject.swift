package import Foundation
@_spi(RuleAuthoring) public import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// An authorization response as it reaches the client: the redirect URL, parsed once, with
/// the form-decoded parameters of its query and of its fragment (POLICY-FORMAT.md section 5).
public struct CallbackSubject: PolicySubject {
    /// Judged by a policy's `callback:` section.
    public static let section = "callback"
    /// The URL as given.
    package let url: String
    /// The parsed URL; nil when `url` is not an absolute URL (then `problem` says why).
    package let components: URLComponents?
    /// Parameters of the query and of the fragment; a part that fails to decode is its error.
    package let query: Result<FormParameters, FormEncodingError>
    package let fragment: Result<FormParameters, FormEncodingError>
    /// Why the URL cannot be used at all.
    package let problem: String?

    /// The callback at `url`, the redirect URL with its query or fragment; a URL that cannot be
    /// read is still a subject, which the section refuses as `callback_malformed`.
    public init(url: String) {
        self.url = url
        problem = Self.problem(url)
        components = problem == nil ? URLComponents(string: url) : nil
        // Query and fragment are split from the text itself: Foundation's parser repairs what
        // it does not like (it re-escapes a stray `%`), and a check must see what was sent.
        let parts = URLText.split(url)
        func decode(_ text: Substring) -> Result<FormParameters, FormEncodingError> {
            Result { () throws(FormEncodingError) in try FormParameters(decoding: text) }
        }
        query = decode(parts.query)
        fragment = decode(parts.fragment)
    }

    /// Why `url` is not a usable absolute URL: too long, a character RFC 3986 does not allow, or
    /// no scheme and host.
    static func problem(_ url: String) -> String? {
        if let problem = URLText.problem(url, what: "the callback URL") { return problem }
        guard let parsed = URLComponents(string: url), parsed.scheme != nil, parsed.host?.isEmpty == false else {
            return "the callback is not an absolute URL with a scheme and host"
        }
        return nil
    }
}

/// Where the authorization server put its response parameters (OAuth 2.0 Multiple Response Types §2.1).
enum ResponseMode: String, Sendable, CaseIterable {
    case query
    case fragment

    /// This mode's parameters of `callback`; nil when they cannot be read (see `problem(of:)`).
    func parameters(of callback: CallbackSubject) -> FormParameters? {
        guard callback.problem == nil else { return nil }
        return try? (self == .query ? callback.query : callback.fragment).get()
    }

    /// Why this mode's parameters of `callback` cannot be read; nil when they can.
    func problem(of callback: CallbackSubject) -> String? {
        if let problem = callback.problem { return problem }
        guard case let .failure(error) = self == .query ? callback.query : callback.fragment else { return nil }
        return "in the \(rawValue), \(error.description)"
    }
}

extension RuleCompiler {
    /// The callback section's `response_mode` (default `query`); every callback rule reads it,
    /// and the compiler keeps one copy of its diagnostics.
    mutating func responseMode() -> ResponseMode {
        guard let node = setting("response_mode") else { return .query }
        guard let text = literalString(node, what: "'response_mode'") else { return .query }
        guard let mode = ResponseMode(rawValue: text) else {
            error(.invalidValue, "'response_mode' must be query or fragment, found '\(text)'", at: node,
                  hint: Suggestion.didYouMean(text, among: ResponseMode.allCases.map(\.rawValue)))
            return .query
        }
        return mode
    }
}

extension EvaluationContext {
    /// The callback; callback rules only run when the caller supplied one.
    var callback: CallbackSubject { subject(CallbackSubject.self)! }
}
