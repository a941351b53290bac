/// The registered claim names of RFC 7519 §4.1 that rules read on every token, found once when
/// a claims set is indexed (`JSONObjectIndex.registered`).
///
/// A rule asks for `exp` by this case rather than by name: the index has the claim's position
/// already, so a lookup is one load instead of a scan of the members, and naming a claim needs
/// no global to be initialised or string to be retained.
@_spi(RuleAuthoring) public enum RegisteredClaim: Int, Sendable, CaseIterable, CustomStringConvertible {
    case iss, sub, aud, exp, nbf, iat, jti, azp, nonce

    /// The claim's name as a token writes it.
    public var description: String {
        switch self {
        case .iss: "iss"
        case .sub: "sub"
        case .aud: "aud"
        case .exp: "exp"
        case .nbf: "nbf"
        case .iat: "iat"
        case .jti: "jti"
        case .azp: "azp"
        case .nonce: "nonce"
        }
    }

    /// The claim whose plain name has `count` bytes and whose first eight bytes, as a
    /// little-endian word, are `word` (`NameWord`); nil for every other name.
    static func named(word: UInt64, count: Int) -> RegisteredClaim? {
        switch (count, word) {
        case (3, 0x73_73_69): .iss
        case (3, 0x62_75_73): .sub
        case (3, 0x64_75_61): .aud
        case (3, 0x70_78_65): .exp
        case (3, 0x66_62_6E): .nbf
        case (3, 0x74_61_69): .iat
        case (3, 0x69_74_6A): .jti
        case (3, 0x70_7A_61): .azp
        case (5, 0x65_63_6E_6F_6E): .nonce
        default: nil
        }
    }
}

/// Where each registered claim is among an object's members: its position, or -1 when the
/// object has no such member.
///
/// A field a claim rather than an array or a SIMD vector: nothing to allocate, and the index
/// object that holds it keeps the 16-byte alignment `malloc` gives (a 64-byte vector made each
/// index an aligned allocation).
extension RegisteredClaim {
    /// The largest NumericDate the engine reads, in seconds either side of the epoch: 2^60,
    /// about 36 billion years (`UnixTime.supportedRange`); an integer date within it needs no
    /// other check.
    package static let largestDateMagnitude: UInt64 = 1 << 60
}

struct RegisteredClaimPositions: Sendable {
    private var iss: Int32 = -1, sub: Int32 = -1, aud: Int32 = -1, exp: Int32 = -1, nbf: Int32 = -1
    private var iat: Int32 = -1, jti: Int32 = -1, azp: Int32 = -1, nonce: Int32 = -1

    /// The positions of the registered claims among `members`, whose names written with escapes
    /// are `escapedNames` (decoded, by position).
    init(_ members: UnsafeBufferPointer<JSONObjectIndex.Member>, escapedNames: [Int: String]) {
        for position in members.indices {
            let member = members[position]
            guard member.plainName, let claim = RegisteredClaim.named(word: member.nameWord, count: Int(member.nameEnd - member.nameStart)) else { continue }
            self[claim] = position
        }
        guard !escapedNames.isEmpty else { return }
        for (position, name) in escapedNames {
            // Compared byte for byte: `==` on strings would take canonically equivalent names as equal.
            if let claim = RegisteredClaim.allCases.first(where: { $0.description.utf8.elementsEqual(name.utf8) }) { self[claim] = position }
        }
    }

    /// The position of `claim`'s member, if the object has one.
    subscript(claim: RegisteredClaim) -> Int? {
        get {
            let position = switch claim {
            case .iss: iss
            case .sub: sub
            case .aud: aud
            case .exp: exp
            case .nbf: nbf
            case .iat: iat
            case .jti: jti
            case .azp: azp
            case .nonce: nonce
            }
            return position < 0 ? nil : Int(position)
        }
        set {
            // An index holds fewer members than its text has bytes, which fit in an Int32.
            let position = Int32(newValue ?? -1)
            switch claim {
            case .iss: iss = position
            case .sub: sub = position
            case .aud: aud = position
            case .exp: exp = position
            case .nbf: nbf = position
            case .iat: iat = position
            case .jti: jti = position
            case .azp: azp = position
            case .nonce: nonce = position
            }
        }
    }

    /// Whether each registered claim among `members` has its common type: `exp`, `nbf` and
    /// `iat` integers within `RegisteredClaim.largestDateMagnitude` (read while indexing), `iss`,
    /// `sub`, `jti`, `azp`, `nonce` and `aud` strings.
    func haveCommonTypes(_ members: UnsafePointer<JSONObjectIndex.Member>) -> Bool {
        func date(_ position: Int32) -> Bool {
            position < 0 || members[Int(position)].integer.map { $0.magnitude <= RegisteredClaim.largestDateMagnitude } ?? false
        }
        func string(_ position: Int32) -> Bool {
            position < 0 || members[Int(position)].kind == .string
        }
        return date(exp) && date(nbf) && date(iat) && string(iss) && string(sub) && string(aud) && string(jti) && string(azp) && string(nonce)
    }
}
