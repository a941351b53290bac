import PolicyRuntime
import PolicyJOSE

/// JWK and JWK Set documents: parsing never crashes, and every key that loads exports a public
/// form that loads again as the same key (same RFC 7638 thumbprint).
enum KeyFuzzing {
    static func run(_ data: [UInt8]) {
        if let set = try? JWKSet(json: data) {
            invariant((try? KeySetIdentity(keys: set.keys)) == set.identity, "a set's identity is not reproducible")
            for key in set.keys { roundTrip(key) }
        }
        if let key = try? JWK(json: data) { roundTrip(key) }
    }

    static func roundTrip(_ key: JWK) {
        guard let thumbprint = try? key.thumbprint() else {
            invariant(false, "a loaded key has no thumbprint")
            return
        }
        guard key.type != .oct else { return }
        guard let exported = try? key.publicJSON(), let reloaded = try? JWK(object: exported) else {
            invariant(false, "a loaded key's public form does not load again")
            return
        }
        invariant((try? reloaded.thumbprint()) == thumbprint, "a key's public form has another thumbprint")
    }
}
