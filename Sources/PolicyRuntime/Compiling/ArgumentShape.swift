@_spi(RuleAuthoring) import PolicyJOSE

/// The shape of what a rule or setting accepts under its key, as the policy format documents it:
/// what the JSON Schema of policies (`PolicySchema`, `policy-run schema`) is generated from, so an
/// editor's completion and checks come from the same registry the compiler uses.
///
/// Shapes describe structure and the values a key allows outright (an enumeration, a bound);
/// finer checks (an unknown algorithm, an undeclared input) stay with the compiler, whose
/// diagnostics are located and carry hints.
@_spi(RuleAuthoring) public indirect enum ArgumentShape: Sendable {
    /// A string, which may refer to inputs (`${name}`).
    case string
    /// A string or a non-empty list of strings.
    case strings
    /// One of these strings.
    case oneOf([String])
    /// One of these strings, or a non-empty list of them.
    case someOf([String])
    /// `true` or `false`.
    case boolean
    /// An integer within the bounds.
    case integer(minimum: Int?, maximum: Int?)
    /// Integer seconds, or a number with `s`, `m`, `h` or `d`.
    case duration
    /// A claim, header or field matcher (section 3): a scalar meaning `equals`, a list meaning
    /// `one_of`, or a mapping of operators.
    case matcher
    /// A mapping of names (claims, headers, parameters) to matchers.
    case matchers
    /// A mapping of names (claim paths) to values of a shape.
    case namedMapping(ArgumentShape)
    /// A key source (section 4).
    case keySource
    /// Any JSON value.
    case any
    /// A list of items of a shape.
    case list(ArgumentShape)
    /// A mapping with these keys (each with a one-line description), of which `required` must be
    /// present; no other key is allowed.
    case mapping([(key: String, shape: ArgumentShape, summary: String)], required: [String])
    /// Any of these shapes.
    case anyOf([ArgumentShape])
}
