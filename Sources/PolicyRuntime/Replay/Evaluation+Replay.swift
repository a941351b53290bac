@_spi(RuleAuthoring) import PolicyJOSE

/// The last step of an evaluation whose rules found one-time values: recording them in the
/// replay store, which only a verdict that is otherwise valid reaches (a refused request uses up
/// no value).
extension Policy {
    /// A verdict of the chain, with the one-time values its passing rules handed over.
    struct Judged: Sendable {
        /// A one-time value, with where the rule that found it is written.
        struct UsedValue: Sendable {
            let rule: String
            let at: String
            let value: OneTimeValue
        }

        let verdict: Verdict
        let oneTimeValues: [UsedValue]
        /// `Evaluation.stableWithin`, when the chain could tell.
        var stableWithin: TimeWindow? = nil
    }

    /// How far `settle` got.
    enum Settlement {
        case finished(Evaluation)
        /// The values must be recorded in a store that must be waited for.
        case waiting(any ReplayStore)
    }

    /// The evaluation of `judged` when its values can be recorded at once (or it has none);
    /// otherwise the store to wait for (`record`).
    func settle(_ judged: Judged, token: DecodedToken?, _ request: EvaluationRequest) -> Settlement {
        guard judged.verdict.valid, !judged.oneTimeValues.isEmpty else {
            return .finished(Evaluation(verdict: judged.verdict, token: token, stableWithin: judged.stableWithin))
        }
        guard let store = request.replayStore else {
            let refusal = ReplayStoreError("the evaluation was given no replay store to record them in")
            return .finished(Evaluation(verdict: verdict(judged, .failure(refusal), request), token: token))
        }
        guard let answer = store.recordNow(judged.oneTimeValues.map(\.value), now: request.now) else { return .waiting(store) }
        return .finished(Evaluation(verdict: verdict(judged, answer, request), token: token))
    }

    /// Records `judged`'s values in `store`, waiting for it.
    func record(_ judged: Judged, token: DecodedToken?, in store: any ReplayStore, _ request: EvaluationRequest) async -> Evaluation {
        let answer: Result<[Bool], ReplayStoreError>
        do {
            answer = .success(try await store.record(judged.oneTimeValues.map(\.value), now: request.now))
        } catch {
            answer = .failure(error)
        }
        return Evaluation(verdict: verdict(judged, answer, request), token: token)
    }

    /// `judged`'s verdict once the store answered: unchanged when every value was new; invalid,
    /// with a finding per value used before, or one saying the store could not answer.
    private func verdict(_ judged: Judged, _ answer: Result<[Bool], ReplayStoreError>, _ request: EvaluationRequest) -> Verdict {
        var findings: [Finding] = []
        var entries: [Trace.Entry] = []
        switch answer {
        case let .success(fresh):
            for (used, new) in zip(judged.oneTimeValues, fresh) {
                let value = used.value
                if new {
                    entries.append(.init(rule: used.rule, status: .pass, at: used.at, detail: "\(value.what) recorded as used, until \(value.expires.iso8601)"))
                } else {
                    let message = "\(value.what) was used before, and may be used once (until \(value.expires.iso8601))"
                    findings.append(Finding(rule: used.rule, code: value.replayCode, message: message, at: used.at))
                    entries.append(.init(rule: used.rule, status: .fail, at: used.at, detail: message))
                }
            }
        case let .failure(error):
            let used = judged.oneTimeValues[0]
            let message = "\(used.value.what) could not be recorded in the replay store, so whether it was used before is not known: \(error.message)"
            findings.append(Finding(rule: used.rule, code: .replayStoreUnavailable, message: message, at: used.at))
            entries.append(.init(rule: used.rule, status: .fail, at: used.at, detail: message))
        }
        let original = judged.verdict
        var trace = original.trace
        if request.trace { trace?.entries += entries }
        guard !findings.isEmpty else {
            return trace == nil ? original : Verdict(policy: original.policy, valid: true, provenBy: original.proof?.key, keyFreshness: original.keyFreshness,
                                                    findings: [], skipped: original.skipped, outputs: original.outputs, trace: trace)
        }
        return Verdict(policy: original.policy, valid: false, provenBy: original.proof?.key, keyFreshness: original.keyFreshness,
                       findings: findings, skipped: original.skipped, outputs: [:], trace: trace)
    }
}
