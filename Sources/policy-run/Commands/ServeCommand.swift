import ArgumentParser
import Foundation
import Logging
import PolicyEngine
import PolicyServer

/// `policy-run serve`: the policies of a directory behind HTTP, for proxies and services.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the policies of a directory over HTTP: verdicts, forward auth for nginx, Caddy and Envoy, health.",
        discussion: """
        Every policy of DIR (its *.yaml files but tests) is served by its name at \
        POST /v1/check/NAME (body {token | request | callback, inputs, now}: the verdict as JSON) \
        and at /v1/authz/NAME (forward auth: 200 with the outputs as X-Auth-* headers, 401 or 403). \
        GET /healthz and /readyz answer probes. SIGTERM and SIGINT stop the server after the calls \
        in flight. Exit status: 0 stopped, 2 usage error or a policy that does not compile.
        """
    )

    @Option(help: ArgumentHelp("The directory of policies to serve.", valueName: "DIR"), completion: .directory)
    var policies: String

    @Option(help: ArgumentHelp("The address to listen on, HOST:PORT (default 127.0.0.1:8181).", valueName: "HOST:PORT"))
    var listen = "127.0.0.1:8181"

    @Option(help: ArgumentHelp("The largest call body accepted (default 1 MiB).", valueName: "BYTES"))
    var maxBodyBytes = 1 << 20

    @Option(help: ArgumentHelp("Decision logs: none (default), timing (policy, result, codes, duration, key) or data (also outputs and refusing rules).",
                               valueName: "LEVEL"))
    var decisionLog: String = "none"

    @Option(help: ArgumentHelp("Where decision logs go (default: standard output); appended to.", valueName: "FILE"))
    var decisionLogFile: String?

    @Option(help: ArgumentHelp("The share of valid decisions logged, from 0 to 1 (invalid ones always are).", valueName: "RATE"))
    var logSampleValid: Double = 1

    func run() async throws {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]), (0...65535).contains(port),
              colon > listen.startIndex else {
            throw ValidationError("--listen expects HOST:PORT, got '\(listen)'")
        }
        guard maxBodyBytes > 0 else { throw ValidationError("--max-body-bytes must be positive") }
        guard let level = DecisionLog.Level(rawValue: decisionLog) else {
            throw ValidationError("--decision-log must be none, timing or data, got '\(decisionLog)'")
        }
        guard (0...1).contains(logSampleValid) else { throw ValidationError("--log-sample-valid must be from 0 to 1, got \(logSampleValid)") }
        var logHandle = FileHandle.standardOutput
        if let decisionLogFile {
            if !FileManager.default.fileExists(atPath: decisionLogFile) { FileManager.default.createFile(atPath: decisionLogFile, contents: nil) }
            guard let handle = FileHandle(forWritingAtPath: decisionLogFile) else { throw ValidationError("cannot write the decision log '\(decisionLogFile)'") }
            handle.seekToEndOfFile()
            logHandle = handle
        }
        let keyCache = JWKSCache(logger: PolicyOptions.warningsOnly)
        let set: ServedPolicies
        do {
            set = try ServedPolicies(directory: policies, keyCache: keyCache)
        } catch {
            Diagnostics.print(error.sorted)
            throw ExitCode(2)
        }
        var configuration = PolicyServer.Configuration()
        configuration.host = String(listen[..<colon])
        configuration.port = port
        configuration.maxBodyBytes = maxBodyBytes
        let server = PolicyServer(policies: set, configuration: configuration,
                                  decisionLog: DecisionLog(level: level, sampleValid: logSampleValid, handle: logHandle))
        var logger = Logger(label: "policy-engine.serve")
        logger.logLevel = .info
        let names = set.current.policies.keys.sorted().joined(separator: ", ")
        // SIGHUP reloads the policies, as daemons do.
        signal(SIGHUP, SIG_IGN)
        let hangup = DispatchSource.makeSignalSource(signal: SIGHUP)
        hangup.setEventHandler { [logger] in server.reload(logger: logger) }
        hangup.resume()
        defer { hangup.cancel() }
        let host = configuration.host
        try await server.run(logger: logger) { port in
            FileHandle.standardError.write(Data("serving \(names) on \(host):\(port)\n".utf8))
        }
    }
}
