/// `import PolicyEngine` is all a service needs: the runtime (policies, verdicts, key caches)
/// comes with it, and `Policy.load` compiles with the built-in rules, whose catalog stays
/// behind this module.
@_spi(RuleAuthoring) @_exported public import PolicyRuntime
/// The JSON values inputs, claims and outputs are, and the engine's error type; the rest of the
/// JOSE layer is `package`.
@_spi(RuleAuthoring) @_exported public import PolicyJOSE

/// The catalog's public face: the subjects a request or callback policy judges
/// (`RequestSubject`, `CallbackSubject`); its rules stay `package`.
@_exported public import Rules
