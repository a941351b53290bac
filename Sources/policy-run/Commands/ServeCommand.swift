import ArgumentParser
import Foundation
import PolicyCommandLine

/// `policy-run serve`: runs `policy-serve`, the HTTP server installed beside `policy-run`.
///
/// `PolicyRun.main` hands the arguments over before parsing; this command is here for the list
/// of subcommands, `policy-run help serve` and the shell completions, which offer `policy-serve`'s
/// options because this command declares the same `ServeOptions`.
///
/// The server is its own binary so that SwiftNIO and Hummingbird are not loaded by every
/// `check`: they triple the binary's size and add 1–3 ms to each start.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the policies of a directory over HTTP: verdicts, forward auth for nginx, Caddy and Envoy, metrics, health.",
        discussion: """
        Runs policy-serve, installed beside policy-run, with the same arguments: \
        'policy-run serve --help' and policy-serve(1) list its options (docs/serve.md).
        """
    )

    /// Never parsed here: declared so that help and completions list them.
    @OptionGroup var options: ServeOptions

    /// The `policy-serve` beside the running `policy-run`.
    static func serverBinary() -> String {
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent("policy-serve").path
    }

    /// Replaces this process with `policy-serve arguments`, or exits 2 saying what is missing.
    static func handOff(_ arguments: [String]) -> Never {
        let path = serverBinary()
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        let reason = String(cString: strerror(errno))
        FileHandle.standardError.write(Data("""
            error: policy-run \(arguments.first == "play" ? "play" : "serve") runs policy-serve, which could not be started from \(path): \(reason).
            Install policy-serve beside policy-run (swift build builds both; swift build --product policy-serve builds it alone).

            """.utf8))
        Foundation.exit(2)
    }
}
