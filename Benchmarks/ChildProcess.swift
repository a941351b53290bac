import Foundation

/// Runs a program to its end, its standard output discarded: the exit status and what it wrote
/// to standard error, which benchmarks quote when a run fails.
/// - Parameter environment: the whole environment of the child (nil: this process's).
func runToEnd(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, standardError: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, text)
}

/// Runs a program to its end: the exit status, what it wrote to standard output, and what it
/// wrote to standard error (read after standard output closes: programs here write little there).
func runCapturingOutput(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, standardOutput: String, standardError: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let output = Pipe(), errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, printed, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
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
