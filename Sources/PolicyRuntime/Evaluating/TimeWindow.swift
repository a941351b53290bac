/// The times at which an evaluation would have reached the same verdict: `from` up to, not
/// including, `until`, in seconds since the epoch.
///
/// Rules compare the time with bounds through `EvaluationContext.isBefore`, which narrows the
/// window to the side of the bound the time fell on; a rule that reads the time itself (to
/// quote it in a finding, to pick keys valid at it) narrows it to that one instant. What is
/// left is where the same token, inputs and keys give the same verdict, byte for byte: what
/// lets a batch reuse a repeated token's verdict for a record at another time (`VerdictMemo`).
package struct TimeWindow: Sendable, Equatable {
    /// The earliest time inside.
    package var from: Double
    /// The first time after the window.
    package var until: Double

    /// Every time: no rule read the clock.
    package static let always = TimeWindow(from: -.infinity, until: .infinity)

    /// The window from `from` up to `until`.
    package init(from: Double, until: Double) {
        self.from = from
        self.until = until
    }

    /// The times inside both this window and `other`.
    package func intersection(_ other: TimeWindow) -> TimeWindow {
        TimeWindow(from: max(from, other.from), until: min(until, other.until))
    }

    /// Whether `time` is inside.
    package func contains(_ time: UnixTime) -> Bool {
        from <= time.seconds && time.seconds < until
    }
}
