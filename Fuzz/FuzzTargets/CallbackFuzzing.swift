@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules

/// An authorization response URL with the callback rules: a valid verdict carries the state
/// the client sent, exactly.
enum CallbackFuzzing {
    static let policy = try! Policy.load(text: """
    policy: callback
    inputs: {state: {}}
    callback:
      redirect_uri: https://app.example.com/cb
      state: ${state}
      issuer: https://idp.example.com
    """, file: "callback.yaml", environment: [:])

    static func run(_ data: [UInt8]) {
        let url = String(decoding: data, as: UTF8.self)
        guard let verdict = try? policy.evaluateNow(subjects: [CallbackSubject(url: url)], inputs: ["state": .string("af0ifjsldkj")], now: fuzzNow) else { return }
        checkVerdict(verdict, proves: false)
        if verdict.valid { invariant(verdict.outputs["state"] == .string("af0ifjsldkj"), "a valid callback with another state") }
    }
}
