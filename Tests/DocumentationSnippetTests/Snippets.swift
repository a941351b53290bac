// Generated from the ```swift blocks of README.md and docs/*.md by DocumentationSnippetTests
// (SNIPPETS_UPDATE=1 swift test --filter DocumentationSnippetTests); compiling this file is the test.
import Hummingbird
import PolicyEngine
import PolicyEngineHummingbird

/// README.md, snippet 1, in an async function.
func readme1Async(token: String, nonce: String) async throws {
    let policy = try Policy.load(file: "Policies/okta-id-token.yaml")    // compiled once, Sendable
    let verdict = try policy.evaluateNow(token: token, inputs: ["nonce": .string(nonce)])   // never waits; in async code too
    if verdict.valid { print(verdict.outputs["user"]!) } else { print(verdict.codes) }
}

/// README.md, snippet 1, in a synchronous function.
func readme1Sync(token: String, nonce: String) throws {
    let policy = try Policy.load(file: "Policies/okta-id-token.yaml")    // compiled once, Sendable
    let verdict = try policy.evaluateNow(token: token, inputs: ["nonce": .string(nonce)])   // never waits; in async code too
    if verdict.valid { print(verdict.outputs["user"]!) } else { print(verdict.codes) }
}

/// README.md, snippet 2, in an async function.
func readme2Async(token: String, nonce: String) async throws {
    let idTokens = try Policy.load(file: "my-idp-id-token.yaml")          // both name the IdP's jwks_uri:
    let accessTokens = try Policy.load(file: "my-idp-access-token.yaml")  // one cache, one fetch
    try await idTokens.prefetch()                                         // at start-up: fail early, first requests don't wait
    let verdict = try await accessTokens.evaluate(token: token)           // fetches only on expiry or an unknown kid
}

/// README.md, snippet 3, in an async function.
func readme3Async(token: String, nonce: String) async throws {
    let gateway = try Policy.load(file: "Policies/oidc-authorize-request.yaml")          // a request policy
    let call = RequestSubject(json: Array(#"{"method": "GET", "url": "/authorize?response_type=code"}"#.utf8))
    let evaluation = try await gateway.evaluate(EvaluationRequest(subjects: [call], now: 1_795_253_400))
    print(evaluation.verdict.valid, evaluation.verdict.codes)                             // and evaluation.token, as decoded
}

/// README.md, snippet 4, in an async function.
func readme4Async(token: String, nonce: String) async throws {
    struct OrdersContext: PolicyRequestContext {
        var coreContext: CoreRequestContextStorage
        var policyVerdict: Verdict?
        init(source: ApplicationRequestContextSource) { coreContext = .init(source: source) }
    }
    let router = Router(context: OrdersContext.self)
    router.add(middleware: PolicyMiddleware(policy: try Policy.load(file: "Policies/rfc9068-access-token.yaml")))
    router.get("/orders") { _, context in "orders of \(context.policyOutputs["subject"]?.stringValue ?? "")" }
    try await Application(router: router).runService()   // 401 or 403 before the route when the token fails
}
