internal import Foundation
internal import Hummingbird
internal import PolicyRuntime
internal import PolicyJOSE

/// `POST /v1/check/{policy}`: the verdict of docs/policy-format.md §8, status 200 whatever it
/// says; 400 only for a call that cannot be judged.
enum CheckEndpoint {
    /// The answer, and its decision: the verdict, or why the call could not be judged.
    static func answer(policy: Policy, body: [UInt8], signatureCache: SignatureCache? = nil,
                       replayStore: any ReplayStore = MemoryReplayStore.shared) async -> (Response, Decision) {
        let call: CheckCall
        do {
            call = try CheckCall(json: body)
        } catch {
            return (ServerResponses.error(.badRequest, code: "call_invalid", error.message), Decision(.refused, code: "call_invalid"))
        }
        do {
            let evaluation = try await policy.evaluate(EvaluationRequest(token: call.token, subjects: call.subjects, inputs: call.inputs,
                                                                         now: call.now,
                                                                         clockSource: call.now == nil ? "server clock" : "the call's now",
                                                                         signatureCache: signatureCache, replayStore: replayStore))
            let verdict = evaluation.verdict
            return (ServerResponses.json(verdict.jsonText()), Decision(verdict: verdict, claims: evaluation.token?.claims, request: call.request))
        } catch {
            return (ServerResponses.error(.badRequest, error), Decision(.refused, code: error.codeName))
        }
    }
}
