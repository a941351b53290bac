import Hummingbird
import PolicyEngine
import PolicyEngineHummingbird

/// The request context of this service: it carries the verdict of the access-token policy.
struct OrdersContext: PolicyRequestContext {
    var coreContext: CoreRequestContextStorage
    var policyVerdict: Verdict?
    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}

// Compile the policy once, at start-up; every request is checked before its route runs.
let policy = try Policy.load(file: CommandLine.arguments.dropFirst().first ?? "../../Policies/rfc9068-access-token.yaml")
let router = Router(context: OrdersContext.self)
router.add(middleware: PolicyMiddleware(policy: policy, inputs: ["required_scope": .string("orders:read")]))
router.get("/orders") { _, context in
    "orders of \(context.policyOutputs["subject"]?.stringValue ?? "nobody")\n"
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 8080)))
try await app.runService()
