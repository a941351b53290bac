@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules

/// A request document with the request rules, including a `not` over the path that no spelling
/// of `/admin` may pass.
enum RequestFuzzing {
    static let policy = try! Policy.load(text: """
    policy: request
    request:
      method: [GET, POST]
      headers:
        Content-Type: {prefix: application/}
      query:
        tenant: {one_of: [acme, globex]}
      body:
        user.name: {matches: "[a-z]+"}
    rules:
      - not: {request: {path: {prefix: /admin}}}
    """, file: "request.yaml", environment: [:])

    static func run(_ data: [UInt8]) {
        let subject = RequestSubject(json: data)
        guard let verdict = try? policy.evaluateNow(subjects: [subject], now: fuzzNow) else { return }
        checkVerdict(verdict, proves: false)
        if verdict.valid, let raw = subject.path, case let .success(path) = RequestPath.normalize(Substring(raw), .standard) {
            invariant(!path.hasPrefix("/admin"), "a path that normalises to /admin passed not: {path: {prefix: /admin}}")
        }
    }
}
