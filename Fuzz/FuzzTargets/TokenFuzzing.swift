@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules

/// Tokens against fixed policies: an ES256 policy with two inline key sets (the signature
/// cache's old failure), an HS256 policy, and a nested-JWE policy. Every verdict answered through
/// the signature cache must equal the one computed without it.
enum TokenFuzzing {
    // Test keys only, the same as Fuzz/fuzz-keys.json, from which make-seeds.py signs the seeds.
    static let signer = try! JWK(json: Array(#"{"kty":"EC","crv":"P-256","kid":"k1","x":"Y9e5xkfTmrJjIlCL0W63pKi8NSyYo8bfWx92iFkQEFI","y":"O6nNpooDrNa3aGJk6p763FA_9YjcVMYoM8GbOblRhIY","d":"MHDTeej6Jaw0bSZ_E_x4JaG974frxaUtIy99ThgoLK4"}"#.utf8))
    static let other = try! JWK(json: Array(#"{"kty":"EC","crv":"P-256","kid":"k1","x":"uO6oHufpa3LdsXXDAwqCXD9EtXYITU4h_rpXHrm6zHM","y":"QvsOG0bpmnTlhkFQivqs2ogo_QzoYdaQCBA_UKbdVsU","d":"DU5i5WBGh9pExvZW-v_VnKmLjPU3uUrboSKUDJmabAE"}"#.utf8))
    static let secret = [UInt8](repeating: 0x42, count: 32)

    static func inline(_ key: JWK) -> String {
        String(decoding: JSONValue.object(try! key.publicKey.publicJSON()).serializedBytes(), as: UTF8.self)
    }

    static let policies: [Policy] = [
        try! Policy.load(text: """
        policy: es
        token:
          algorithms: [ES256]
          keys: {jwk: \(inline(signer))}
          issuer: https://issuer.example
          audience: [client-1, client-2]
          expires: optional
          claims:
            scope: {contains: read}
            tenant: {matches: "[a-z]{1,8}"}
        rules:
          - any_of:
              - token: {keys: {jwk: \(inline(other))}}
              - token: {keys: {jwk: \(inline(signer))}}
          - not: {token: {claims: {role: admin}}}
        """, file: "es.yaml", environment: [:]),
        try! Policy.load(text: """
        policy: hs
        mode: fail_fast
        token:
          algorithms: [HS256, HS512]
          keys: {secret: "${env:K}"}
          typ: JWT
          crit: [exp]
          nonce: n-1
        """, file: "hs.yaml", environment: ["K": Base64URL.encode(secret)]),
        try! Policy.load(text: """
        policy: nested
        token:
          format: nested
          decryption: {algorithms: [dir, A256KW], encryption: [A256GCM, A128CBC-HS256], key: {secret: "${env:K}"}}
          algorithms: [ES256]
          keys: {jwk: \(inline(signer))}
        """, file: "nested.yaml", environment: ["K": Base64URL.encode(secret)]),
    ]

    static func run(_ data: [UInt8]) {
        let token = String(decoding: data, as: UTF8.self)
        for policy in policies {
            let cache = SignatureCache()
            guard let plain = try? policy.evaluateNow(token: token, now: fuzzNow) else { continue }
            checkVerdict(plain, proves: true)
            for _ in 0..<2 {
                guard let cached = try? policy.evaluateNow(token: token, now: fuzzNow, signatureCache: cache) else { continue }
                invariant(cached.json == plain.json, "\(policy.name): the verdict through the signature cache differs from the one without")
            }
        }
    }
}
