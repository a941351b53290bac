import PolicyEngine
import Rules
import Testing

@Suite("Rules catalog")
struct BuiltinRulesTests {
    @Test("the catalog exposes every stable JOSE error code, each a distinct snake_case string")
    func errorCodes() {
        let codes = BuiltinRules.joseErrorCodes.map(\.rawValue)
        #expect(codes.count == JOSEError.Code.allCases.count)
        #expect(Set(codes).count == codes.count)
        #expect(codes.allSatisfy { $0.allSatisfy { $0.isLowercase || $0 == "_" || $0.isNumber } })
    }
}
