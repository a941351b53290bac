import Foundation
import PolicyCrypto
@testable import PolicyRuntime
@testable import PolicyJOSE
import Testing

/// One test case of a Wycheproof file, with its group.
struct WycheproofCase {
    enum Expected: String { case valid, invalid, acceptable }

    let file: String
    let group: JSONObject
    let test: JSONObject
    let tcId: Int
    let comment: String
    let expected: Expected
    let flags: [String]

    func string(_ name: String) -> String { test[name]?.stringValue ?? "" }
    func hex(_ name: String) -> [UInt8] { Hex.decode(string(name)) }
    func groupString(_ name: String) -> String { group[name]?.stringValue ?? "" }
    func groupHex(_ name: String) -> [UInt8] { Hex.decode(groupString(name)) }
    var label: String { "\(file) tcId \(tcId) (\(comment))" }
}

/// What the code under test did with a case.
enum Outcome: Equatable {
    case accepted
    case rejected(String)

    /// Runs `body`: true is acceptance, false or a thrown error is rejection.
    static func of(_ body: () throws -> Bool) -> Outcome {
        do {
            return try body() ? .accepted : .rejected("verification returned false")
        } catch let error as JOSEError {
            return .rejected(error.description)
        } catch {
            return .rejected("\(error)")
        }
    }
}

/// How the project decides the `acceptable` cases of a family, written next to each test.
enum AcceptableDecision {
    case mustAccept
    case mustReject
    /// Either outcome is fine; the closure says whether an acceptance was also correct.
    case either
}

/// A case whose listed result the project deliberately does not follow, and why.
struct VectorException {
    /// The error code we require (of the token or the crypto layer), or nil when the case must be accepted.
    let expectedErrorCode: String?
    let reason: String

    static func rejected(_ code: JOSEError.Code, _ reason: String) -> VectorException {
        VectorException(expectedErrorCode: code.rawValue, reason: reason)
    }

    static func rejected(_ code: CryptoError.Code, _ reason: String) -> VectorException {
        VectorException(expectedErrorCode: code.rawValue, reason: reason)
    }

    static func accepted(_ reason: String) -> VectorException {
        VectorException(expectedErrorCode: nil, reason: reason)
    }
}

/// The one generic runner every Wycheproof file goes through (swift-crypto's pattern): it loads
/// the file from the test bundle, runs every case of every group, and records each mismatch with
/// the file and tcId.
enum Wycheproof {
    struct Report {
        var total = 0, valid = 0, invalid = 0, acceptable = 0, exceptions = 0
    }

    /// A vector file of `Vectors/<folder>` as a JSON object.
    static func load(_ file: String, folder: String = "wycheproof") throws -> JSONObject {
        let url = try #require(Bundle.module.resourceURL?.appendingPathComponent("Vectors/\(folder)/\(file)"))
        let data = try Data(contentsOf: url)
        return try JSONParser().parseObject(Array(data), what: file)
    }

    @discardableResult
    static func run(
        _ file: String,
        acceptable: (WycheproofCase) -> AcceptableDecision = { _ in .mustReject },
        exceptions: [Int: VectorException] = [:],
        sourceLocation: Testing.SourceLocation = #_sourceLocation,
        _ body: (WycheproofCase) throws -> Outcome
    ) throws -> Report {
        let document = try load(file)
        var report = Report()
        for groupValue in document["testGroups"]?.arrayValue ?? [] {
            let group = try #require(groupValue.objectValue)
            for testValue in group["tests"]?.arrayValue ?? [] {
                let test = try #require(testValue.objectValue)
                let testCase = WycheproofCase(
                    file: file, group: group, test: test,
                    tcId: Int(test["tcId"]?.numberValue?.int64Value ?? -1),
                    comment: test["comment"]?.stringValue ?? "",
                    expected: WycheproofCase.Expected(rawValue: test["result"]?.stringValue ?? "") ?? .invalid,
                    flags: (test["flags"]?.arrayValue ?? []).compactMap(\.stringValue)
                )
                let outcome: Outcome
                do {
                    outcome = try body(testCase)
                } catch {
                    outcome = .rejected("\(error)")
                }
                report.total += 1
                if let exception = exceptions[testCase.tcId] {
                    report.exceptions += 1
                    check(outcome, rejectedWith: exception, testCase, sourceLocation)
                    continue
                }
                switch testCase.expected {
                case .valid:
                    report.valid += 1
                    if case let .rejected(reason) = outcome {
                        Issue.record("\(testCase.label): valid case was rejected: \(reason)", sourceLocation: sourceLocation)
                    }
                case .invalid:
                    report.invalid += 1
                    if outcome == .accepted {
                        Issue.record("\(testCase.label): invalid case was accepted", sourceLocation: sourceLocation)
                    }
                case .acceptable:
                    report.acceptable += 1
                    switch (acceptable(testCase), outcome) {
                    case (.mustAccept, .rejected(let reason)):
                        Issue.record("\(testCase.label): acceptable case must be accepted here: \(reason)", sourceLocation: sourceLocation)
                    case (.mustReject, .accepted):
                        Issue.record("\(testCase.label): acceptable case must be rejected here", sourceLocation: sourceLocation)
                    default:
                        break
                    }
                }
            }
        }
        #expect(report.total > 0, "\(file) ran no case", sourceLocation: sourceLocation)
        print("wycheproof \(file): \(report.total) cases (\(report.valid) valid, \(report.invalid) invalid, \(report.acceptable) acceptable, \(report.exceptions) documented exceptions)")
        return report
    }

    private static func check(_ outcome: Outcome, rejectedWith exception: VectorException, _ testCase: WycheproofCase, _ sourceLocation: Testing.SourceLocation) {
        guard let expectedErrorCode = exception.expectedErrorCode else {
            if case let .rejected(reason) = outcome {
                Issue.record("\(testCase.label): documented exception must be accepted (\(exception.reason)): \(reason)", sourceLocation: sourceLocation)
            }
            return
        }
        guard case let .rejected(reason) = outcome else {
            Issue.record("\(testCase.label): documented exception must be rejected (\(exception.reason))", sourceLocation: sourceLocation)
            return
        }
        if !reason.hasPrefix(expectedErrorCode) {
            Issue.record("\(testCase.label): expected \(expectedErrorCode), got \(reason)", sourceLocation: sourceLocation)
        }
    }
}
