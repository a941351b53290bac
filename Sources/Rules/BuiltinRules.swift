public import PolicyEngine

/// The catalog of built-in rules.
///
/// The policy language (a later issue) fills this list; until then it only re-exports the engine
/// so that the `Rules` layer already depends downward on `PolicyEngine` as DESIGN.md lays out.
public enum BuiltinRules {
    /// The JOSE error codes the engine reports, re-exposed for rule authors.
    public static let joseErrorCodes: [JOSEError.Code] = JOSEError.Code.allCases
}
