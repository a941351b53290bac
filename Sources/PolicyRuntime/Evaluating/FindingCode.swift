@_spi(RuleAuthoring) import PolicyJOSE

/// The stable code of a failed check, as verdicts report it: `token_expired`, `kid_unknown`.
///
/// An open set, as jwt-kit's error types are: the engine declares the codes of what it does
/// itself (decoding, keys, verification, batch records, composition), each family of rules
/// declares its own next to the rules (`TimeFindingCodes.swift`), and a custom rule declares
/// its codes the same way, named `x_...` so no later built-in code can take its name. A code is
/// its snake_case name; two codes with the same name are the same code.
public struct FindingCode: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What a failure with this code says about the subject, which composition needs to know.
    public enum Kind: Sendable {
        /// The subject was judged and does not match (the usual failure).
        case mismatch
        /// Something the policy looks for is absent. When every branch of an `any_of` fails,
        /// another branch's concrete mismatch is reported before an absence.
        case absent
        /// The subject could not be judged: malformed, too large, of the wrong type, keys out of
        /// reach. Such a failure is never turned into a pass, under `not` or as a `when`
        /// condition (`not: {path: {prefix: /admin}}` must not let an undecodable path through).
        case undecided
    }

    /// The snake_case name verdicts carry.
    public let rawValue: String
    /// What the failure says about the subject; not part of the code's identity (a code read
    /// back from JSON is a `mismatch`).
    public let kind: Kind

    /// Declares a code; `rawValue` is lowercase snake_case (`x_` first for a custom rule's).
    public init(_ rawValue: String, _ kind: Kind = .mismatch) {
        precondition(FindingCode.isWellFormed(rawValue), "a finding code is lowercase snake_case, found '\(rawValue)'")
        self.rawValue = rawValue
        self.kind = kind
    }

    /// Whether `name` is lowercase letters and digits in words joined by single underscores.
    public static func isWellFormed(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(0x30...0x39).contains(first) else { return false }
        return name.split(separator: "_", omittingEmptySubsequences: false).allSatisfy { word in
            !word.isEmpty && word.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }
        }
    }

    /// Every code the engine itself reports: batch records, token handling, composition, replay.
    public static var engineCodes: [FindingCode] { batchRecordCodes + tokenHandlingCodes + compositionCodes + replayCodes }

    /// Whether the finding says the subject could not be judged (`Kind.undecided`).
    public var meansUndecided: Bool { kind == .undecided }

    /// The snake_case name.
    public var description: String { rawValue }

    /// Codes are equal by name: a code read back from JSON equals the declared one whatever its kind.
    public static func == (lhs: FindingCode, rhs: FindingCode) -> Bool { lhs.rawValue == rhs.rawValue }
    /// Hashes the name, as equality compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// Reads a code from its name; a name that is not snake_case is refused.
    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard FindingCode.isWellFormed(name) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'\(name)' is not a finding code"))
        }
        self.init(name)
    }

    /// Writes the code as its name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
