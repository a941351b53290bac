import ArgumentParser
import Foundation
import Logging
import PolicyAuthoring
import PolicyCommandLine
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import Rules

/// `policy-run test`: runs policy test files (`NAME.test.yaml`) and reports like a test runner.
struct TestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run policy test files (NAME.test.yaml) against their policies.",
        discussion: """
        PATH is a test file or a directory searched (recursively) for *.test.yaml files; the \
        default is the working directory. Each file names its policy, read as NAME.yaml beside \
        it. Tokens a case mints are signed with test keys that stand in for the policy's key \
        sources; literal tokens, requests and callbacks are checked with the policy's own keys. \
        Exit status: 0 every case passed, 1 a case failed, 2 usage error or a test file or \
        policy that does not load.
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, junit
    }

    @Argument(help: "Test files, or directories holding *.test.yaml files.")
    var paths: [String] = ["."]

    @Option(help: "Output format: text (a line per case) or junit (JUnit XML for CI).")
    var format: Format = .text

    @Option(help: ArgumentHelp("Where the report goes: a file, or '-' for standard output.", valueName: "FILE"))
    var output = "-"

    @Flag(help: "After the results, list per policy the rules and finding codes no case exercised.")
    var coverage = false

    @OptionGroup var colour: ColourOption

    @Option(name: .customLong("run"), help: ArgumentHelp("Run only the cases whose name contains a match of this RE2 pattern.", valueName: "REGEX"))
    var casePattern: String?

    @Option(name: .customLong("policy-root"),
            help: ArgumentHelp("A directory policies may read bases and key files from (repeatable; default: each policy file's directory).", valueName: "DIR"))
    var roots: [String] = []

    func run() async throws {
        let files = try TestFileSearch.files(in: paths)
        guard !files.isEmpty else { throw ValidationError("no *.test.yaml file in \(paths.joined(separator: ", "))") }
        var runner = try PolicyTestRunner(keyCache: JWKSCache(logger: Logger.keyWarningsOnly))
        runner.fileRoots = roots.isEmpty ? nil : FileRoots(roots)
        if let casePattern {
            switch CompiledPattern.compile("(?s).*(?:\(casePattern)).*") {
            case let .success(pattern): runner.caseFilter = { pattern.wholeMatches($0) }
            case let .failure(refusal): throw ValidationError("--run: \(refusal.message)")
            }
        }
        var reports: [PolicyTestReport] = []
        for file in files { reports.append(await runner.run(file: file)) }
        let text = switch format {
        case .junit: JUnitReport(reports).xml
        case .text: TestReportText(reports: reports, coverage: coverage, colour: output == "-" && colour.enabled).rendered + "\n"
        }
        try ReportOutput.write(text, to: output)
        if reports.contains(where: { !$0.problems.isEmpty }) { throw ExitCode(2) }
        if reports.contains(where: { $0.failed > 0 }) { throw ExitCode(1) }
    }
}

/// The test files named on the command line: files as given, directories searched for
/// `*.test.yaml`, in path order.
enum TestFileSearch {
    static func files(in paths: [String]) throws -> [String] {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                try InputFile.checkReadable(path)
                files.append(path)
                continue
            }
            let found = (FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? [])
                .filter { $0.hasSuffix(".test.yaml") }
                .sorted()
            files += found.map { path == "." ? $0 : PolicyPath.joined(path, $0) }
        }
        return files
    }
}

/// Where a report goes: standard output for `-`, otherwise a file.
enum ReportOutput {
    static func write(_ text: String, to output: String) throws {
        do {
            try OutputFile.write(text, to: output)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
