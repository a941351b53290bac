/// The time an evaluation judges at, as a rule quotes it in a finding's message
/// (`EvaluationContext.quotedNow`): `"expired at \(exp); evaluated at \(context.quotedNow)"`.
///
/// Quoting the time is the one use of it that does not tie a verdict to its instant: a verdict
/// whose rules compared the time only through `isBefore` says the same at any time inside its
/// window, with that time quoted instead (`Verdict.requoted(at:)`), so a batch reuses an
/// expired token's verdict for its next record rather than judging the token again. Written
/// into a `FindingMessage`, it marks its place in the text; written anywhere else (its
/// `description`), it reads the context's `now`, which ties the verdict to this instant.
@_spi(RuleAuthoring) public struct QuotedTime: Sendable, CustomStringConvertible {
    /// The context whose time this is, to tie the verdict to it when quoted where no place is kept.
    let context: EvaluationContext
    /// The time judged at.
    let instant: UnixTime

    /// The time as `2026-11-21T10:00:00Z`, tying the verdict to this instant.
    public var description: String { context.now.description }
}
