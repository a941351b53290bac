import Foundation
import PolicyRuntime
import PolicyJOSE
import PolicyCrypto

/// Single-core rates for raw verification and whole compact-JWS verification of a typical
/// token, each next to the primitive's reference rate measured in the same run.
enum JOSEBenchmark {
    /// Claims that make a typical ~800-byte RS256 access token (the workload).
    static let claims: [UInt8] = Array("""
    {"iss":"https://login.example.com/oauth2/default","sub":"00u1a2b3c4d5e6f7g8h9",\
    "aud":"api://default","iat":1795251600,"exp":1795255200,"jti":"AT.b7PqW3n9Zr4Vx2Lk8Ms5",\
    "cid":"0oa1b2c3d4e5f6g7h8i9","scp":["openid","profile","orders:read"],"auth_time":1795251590}
    """.utf8)

    static let cases: [(JWSAlgorithm, reference: String?)] = [
        (.rs256, "rsa2048"), (.ps256, "rsa2048"), (.es256, "ecdsap256"),
        (.eddsa, nil), (.hs256, nil), (.bp256r1, "ecdsabrp256r1"),
    ]

    /// Interleaved measurement rounds per algorithm; each figure is its best round.
    static let rounds = 3

    static func run() throws -> [BenchmarkRow] {
        var rows: [BenchmarkRow] = []
        for (algorithm, referenceName) in cases {
            let key = try JWK.generate(for: algorithm, kid: "bench-key-2026-11")
            let header = JSONObject(["typ": .string("JWT"), "kid": .string("bench-key-2026-11")])
            let token = try CompactJWS.sign(payload: claims, header: header, algorithm: algorithm, key: key)
            let verifyKey = try key.publicKey
            let jws = try CompactJWS(token)
            let verifier = try verifyKey.verifier(for: algorithm)
            guard try jws.verify(with: verifyKey) else { fatalError("benchmark token does not verify") }

            let signature = Array(jws.signature), signingInput = Array(jws.signingInput)
            let label: String
            let measureReference: () -> Double
            switch algorithm {
            case .eddsa:
                label = "libsodium verify loop"
                measureReference = { ReferenceRates.sodiumEd25519Verify(message: signingInput) }
            case .hs256:
                label = "OpenSSL HMAC loop"
                measureReference = { ReferenceRates.opensslHMACSHA256(message: signingInput) }
            default:
                label = "openssl speed \(referenceName!)"
                measureReference = { ReferenceRates.opensslSpeedVerify(referenceName!, seconds: 1) ?? .nan }
            }
            // The machine's speed drifts between seconds; interleaving the three measurements
            // and keeping each one's best round compares them under the same conditions.
            var reference = 0.0, raw = 0.0, whole = 0.0
            for _ in 0..<rounds {
                reference = max(reference, measureReference())
                raw = max(raw, measureRate(seconds: 1) {
                    blackHole(verifier.verify(signature: signature, message: signingInput))
                })
                whole = max(whole, measureRate(seconds: 1) {
                    do {
                        let parsed = try CompactJWS(token)
                        blackHole(try parsed.claims())
                        blackHole(try parsed.verify(with: verifyKey))
                    } catch {
                        fatalError("whole-token verify failed: \(error)")
                    }
                })
            }
            rows.append(BenchmarkRow(name: "\(algorithm.rawValue) raw verify", ours: raw, reference: reference, referenceName: label, target: 0.9))
            rows.append(BenchmarkRow(name: "\(algorithm.rawValue) whole JWS (\(token.utf8.count) B)", ours: whole, reference: reference,
                            referenceName: label, target: algorithm == .rs256 ? 0.85 : nil))
        }
        let parser = JSONParser()
        let ours = measureRate { blackHole(try? parser.parse(claims)) }
        let data = Data(claims)
        let foundation = measureRate { blackHole(try? JSONSerialization.jsonObject(with: data)) }
        rows.append(BenchmarkRow(name: "JSON parse (\(claims.count) B claims)", ours: ours, reference: foundation,
                        referenceName: "Foundation JSONSerialization", target: 3.0))
        return rows
    }
}
