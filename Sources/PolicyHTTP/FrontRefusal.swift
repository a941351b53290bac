package import HTTPTypes

/// Why an HTTP front refuses a request before any policy judges it: the request cannot be read
/// one way only (a repeated forwarded header, a target or host that does not parse, a path with
/// `;` or above the root), so no policy is chosen and none is asked.
package struct FrontRefusal: Error, Sendable, Equatable {
    /// 400 for a request that cannot be read, 403 for one no route takes.
    package let status: HTTPResponse.Status
    /// A stable code: `header_repeated`, `method_invalid`, `proto_invalid`, `host_invalid`,
    /// `target_invalid`, `target_ambiguous`, `target_missing`, `path_parameter`, `input_missing`,
    /// `no_route`.
    package let code: String
    /// Why, in words a client can act on; it quotes no header value.
    package let message: String

    /// A refusal with `status`, `code` and `message`.
    package init(_ status: HTTPResponse.Status = .badRequest, code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }
}
