/// A JSON object read in place: a token's claims, a batch record.
///
/// Rules look up a few claims each; the view keeps the text and where each member lies
/// (`JSONObjectIndex`), and builds a value only when a rule, an output or a message asks for it.
/// The text is checked as strictly as `JSONParser` checks it: duplicates, depth, UTF-8, numbers.
public struct JSONObjectView: Sendable {
    /// `@unchecked`: a `JSONObjectIndex` is immutable once made, but as a `ManagedBuffer` it
    /// cannot state that itself.
    @usableFromInline enum Storage: @unchecked Sendable {
        case indexed(JSONObjectIndex)
        case object(JSONObject)
    }

    @usableFromInline let storage: Storage

    /// An object already built: claims for tests of rules, tokens made in code.
    public init(_ object: JSONObject) {
        storage = .object(object)
    }

    /// Reads `bytes`, which must hold one JSON object.
    ///
    /// - Parameters:
    ///   - shapes: layouts of objects read before, which a text repeating one is indexed against.
    ///   - parse: builds the object with `JSONParser` when the index refuses the text, so every
    ///     refusal is worded as the parser words it. Should the parser accept what the index
    ///     refused, its tree serves: the two agree on every test, and a difference must not refuse.
    /// - Throws: what `parse` throws.
    package init(_ bytes: ArraySlice<UInt8>, maxDepth: Int, shapes: JSONObjectShapes? = nil,
                 parse: (ArraySlice<UInt8>) throws(JOSEError) -> JSONObject) throws(JOSEError) {
        do {
            storage = .indexed(try JSONObjectIndex.make(bytes, maxDepth: maxDepth, shapes: shapes))
        } catch {
            storage = .object(try parse(bytes))
        }
    }

    /// Reads a payload as a JWT Claims Set (RFC 7519 §7.2 step 10): one JSON object.
    ///
    /// - Parameter what: the payload in messages ("the JWS payload").
    /// - Throws: what `CompactJWS.claimsSet` throws for the same payload, with the same message:
    ///   `malformed_token`, or `json_too_deep`.
    package init(claimsPayload payload: [UInt8], limits: TokenLimits, what: String) throws(JOSEError) {
        try self.init(claimsPayload: payload[...], limits: limits, what: what)
    }

    /// Reads a payload that is part of a larger array (a JWS's decoded parts), as
    /// `init(claimsPayload:limits:what:)` reads one of its own.
    ///
    /// - Parameter shapes: layouts of claims sets read before (an issuer's tokens repeat theirs).
    package init(claimsPayload payload: ArraySlice<UInt8>, limits: TokenLimits, what: String, shapes: JSONObjectShapes? = nil) throws(JOSEError) {
        try self.init(payload, maxDepth: limits.maxJSONDepth, shapes: shapes) { bytes throws(JOSEError) in try CompactJWS.claimsSet(bytes, limits: limits, what: what) }
    }

    /// The value of the member named `name` (compared code point for code point), if present.
    @inlinable public subscript(name: String) -> JSONValue? {
        switch storage {
        case let .indexed(index): index.position(of: name).map(index.value(at:))
        case let .object(object): object[name]
        }
    }

    /// The kind of the member named `name`, without building its value; nil when absent.
    public func kind(of name: String) -> JSONKind? {
        switch storage {
        case let .indexed(index): index.position(of: name).map(index.kind(at:))
        case let .object(object): object[name]?.kind
        }
    }

    /// Whether the member named `name` is a string equal to `text`, code point for code point;
    /// compared in place when the claim is written without escapes.
    public func string(_ name: String, equals text: String) -> Bool {
        switch storage {
        case let .indexed(index): index.position(of: name).map { index.string(at: $0, equals: text) } ?? false
        case let .object(object): object[name]?.stringValue?.isExactly(text) == true
        }
    }

    /// The value of the member named `name`, if present.
    @_spi(RuleAuthoring) @inlinable public subscript(name: JSONMemberName) -> JSONValue? {
        switch storage {
        case let .indexed(index): index.position(of: name).map(index.value(at:))
        case let .object(object): object[name.text]
        }
    }

    /// The kind of the member named `name`, without building its value; nil when absent.
    @_spi(RuleAuthoring) @inlinable public func kind(of name: JSONMemberName) -> JSONKind? {
        switch storage {
        case let .indexed(index): index.position(of: name).map(index.kind(at:))
        case let .object(object): object[name.text]?.kind
        }
    }

    /// Whether the member named `name` is a string equal to `text`, code point for code point.
    @_spi(RuleAuthoring) @inlinable public func string(_ name: JSONMemberName, equals text: String) -> Bool {
        switch storage {
        case let .indexed(index): index.position(of: name).map { index.string(at: $0, equals: text) } ?? false
        case let .object(object): object[name.text]?.stringValue?.isExactly(text) == true
        }
    }

    /// The value of the registered claim `claim`, if present: found without a scan.
    @_spi(RuleAuthoring) @inlinable public subscript(claim: RegisteredClaim) -> JSONValue? {
        switch storage {
        case let .indexed(index): index.position(of: claim).map(index.value(at:))
        case let .object(object): object[claim.description]
        }
    }

    /// The kind of the registered claim `claim`, without building its value; nil when absent.
    @_spi(RuleAuthoring) @inlinable public func kind(of claim: RegisteredClaim) -> JSONKind? {
        switch storage {
        case let .indexed(index): index.kind(of: claim)
        case let .object(object): object[claim.description]?.kind
        }
    }

    /// Whether each registered claim present has its common type, checked at once
    /// (`JSONObjectIndex.registeredClaimsHaveCommonTypes`); false for an object that is not
    /// indexed, which is then checked claim by claim.
    @_spi(RuleAuthoring) @inlinable public var registeredClaimsHaveCommonTypes: Bool {
        switch storage {
        case let .indexed(index): index.registeredClaimsHaveCommonTypes
        case .object: false
        }
    }

    /// The registered claim `claim` when it is an integer that fits in 64 bits; nil when it is
    /// absent or any other value (`subscript(claim:)` tells which).
    @_spi(RuleAuthoring) @inlinable public func integer(_ claim: RegisteredClaim) -> Int64? {
        switch storage {
        case let .indexed(index): index.integer(of: claim)
        case let .object(object):
            if case let .number(.integer(value))? = object[claim.description] { value } else { nil }
        }
    }

    /// Whether the registered claim `claim` is a string equal to `text`, code point for code point.
    @_spi(RuleAuthoring) @inlinable public func string(_ claim: RegisteredClaim, equals text: String) -> Bool {
        switch storage {
        case let .indexed(index): index.string(claim, equals: text)
        case let .object(object): object[claim.description]?.stringValue?.isExactly(text) == true
        }
    }

    /// Where the member named `name` lies in the bytes viewed, between its quotes, when it is a
    /// string written without escapes (its bytes are then its text); nil otherwise, and for a
    /// view of a built object.
    package func plainStringRange(of name: JSONMemberName) -> Range<Int>? {
        guard case let .indexed(index) = storage else { return nil }
        return index.position(of: name).flatMap(index.plainStringRange(at:))
    }

    /// Every member, built: for outputs, traces and `--include-claims`.
    public var object: JSONObject {
        switch storage {
        case let .indexed(index): JSONObject(members: (0..<index.count).map { JSONMember(name: index.name(at: $0), value: index.value(at: $0)) })
        case let .object(object): object
        }
    }

    /// The member names in the text's order.
    public var names: [String] {
        switch storage {
        case let .indexed(index): (0..<index.count).map(index.name(at:))
        case let .object(object): object.names
        }
    }

    /// The number of members.
    public var count: Int {
        switch storage {
        case let .indexed(index): index.count
        case let .object(object): object.count
        }
    }
}
