import Foundation

/// Runs a program to its end, its standard output discarded: the exit status and what it wrote
/// to standard error, which benchmarks quote when a run fails.
/// - Parameter environment: the whole environment of the child (nil: this process's).
func runToEnd(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, standardError: String) {
    let run = try launch(executable, arguments, environment: environment, keepingOutput: false)
    return (run.status, run.standardError)
}

/// Runs a program to its end: the exit status, what it wrote to standard output, and what it
/// wrote to standard error.
func runCapturingOutput(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, standardOutput: String, standardError: String) {
    try launch(executable, arguments, environment: nil, keepingOutput: true)
}

/// Runs a program to its end, reading its standard output (when kept) and then its standard
/// error: programs here write little there.
private func launch(_ executable: URL, _ arguments: [String], environment: [String: String]?,
                    keepingOutput: Bool) throws -> (status: Int32, standardOutput: String, standardError: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    let output = Pipe(), errors = Pipe()
    process.standardOutput = keepingOutput ? output : FileHandle.nullDevice
    process.standardError = errors
    try process.run()
    let printed = keepingOutput ? String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) : ""
    let complaints = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, printed, complaints)
}

/// The release `policy-run` built beside this benchmark, or the one `POLICY_RUN` names (another
/// build, for a before-and-after run).
func builtPolicyRun() throws -> URL {
    let policyRun = ProcessInfo.processInfo.environment["POLICY_RUN"].map { URL(fileURLWithPath: $0) }
        ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("policy-run")
    guard FileManager.default.isExecutableFile(atPath: policyRun.path) else {
        throw BenchmarkError("\(policyRun.path) is not an executable policy-run; run swift build -c release first")
    }
    return policyRun
}
