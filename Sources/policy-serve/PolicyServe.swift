import ArgumentParser
import Foundation
import Logging
import PolicyCommandLine
import PolicyRuntime
import PolicyJOSE
import PolicyServer

/// `policy-serve` (also run as `policy-run serve`): the policies of a directory behind HTTP, for
/// proxies and services.
///
/// Its own binary, so that only the server loads SwiftNIO and Hummingbird.
@main
struct PolicyServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy-serve",
        abstract: "Serve the policies of a directory over HTTP: verdicts, forward auth for nginx, Caddy and Envoy, metrics, health.",
        discussion: """
        Every policy of the directory (its *.yaml files but tests) is served by its name at \
        POST /v1/check/NAME (body {token | request | callback, inputs, now}: the verdict as JSON) \
        and at /v1/authz/NAME (forward auth: 200 with the outputs as X-Auth-* headers, 401 or 403); \
        a configuration file adds routes at /v1/authz, limits, decision logs and reload settings \
        (docs/serve.md). GET /healthz, /readyz and /metrics answer probes and scrapes. A changed \
        policy file, or SIGHUP, reloads the policies; SIGTERM and SIGINT stop the server after \
        the calls in flight. 'policy-serve play DIR' serves the playground instead (policy-run \
        play --help). Exit status: 0 stopped (or, with --check, all is well), 2 usage \
        error, a configuration or a policy that does not compile.
        """,
        version: Release.version
    )

    static func main() async {
        // Before any task runs: each call's handler then stays on the event loop that read it.
        _ = PolicyServer.runTasksOnEventLoops()
        // `play` is a command of its own, not a subcommand: ArgumentParser would let this
        // command's options (--listen) take the arguments meant for it.
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "play" {
            await CommandMain.run(PlayCommand.self, arguments: Array(arguments.dropFirst()))
        } else {
            await CommandMain.run(Self.self)
        }
    }

    @OptionGroup var options: ServeOptions

    /// The configuration file's settings with the command line's on top.
    private func settings() throws -> ServeConfiguration? {
        guard let config = options.config else { return nil }
        do {
            return try ServeConfiguration(file: config)
        } catch {
            Diagnostics.print(error.sorted)
            throw ExitCode(2)
        }
    }

    func run() async throws {
        guard (options.policies == nil) != (options.config == nil) else { throw ValidationError("give either --policies DIR or --config FILE") }
        let file = try settings()
        var configuration = file?.server ?? PolicyServer.Configuration()
        configuration.maxBodyBytes = options.maxBodyBytes ?? configuration.maxBodyBytes
        if let listen = options.listen, !configuration.listen(on: listen) {
            throw ValidationError("--listen expects HOST:PORT, got '\(listen)'")
        }
        guard configuration.maxBodyBytes > 0 else { throw ValidationError("--max-body-bytes must be positive") }
        if let drain = options.drain {
            guard let period = ServeConfiguration.duration(drain), period >= .zero, period <= .seconds(300) else {
                throw ValidationError("--drain expects a duration from 0 to 5m (0, 5s, 1m), got '\(drain)'")
            }
            configuration.drain = period
        }
        if let signatureCache = options.signatureCache {
            configuration.signatureCacheBytes = try CacheSizeOption.bytes(signatureCache, option: "--signature-cache")
        }
        let levelName = options.decisionLog ?? file?.decisionLogLevel.rawValue ?? "none"
        guard let level = DecisionLog.Level(rawValue: levelName) else {
            throw ValidationError("--decision-log must be none, timing or data, got '\(levelName)'")
        }
        var fields = file?.decisionLogFields ?? DecisionLog.Fields()
        if let logClaims = options.logClaims { fields.claims = logClaims.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        if let logRequestFields = options.logRequestFields {
            fields.request = logRequestFields.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if let problem = fields.request.lazy.compactMap(DecisionLog.Fields.problem(requestField:)).first {
                throw ValidationError("--log-request-fields: \(problem)")
            }
        }
        let sample = options.logSampleValid ?? file?.sampleValid ?? 1
        guard (0...1).contains(sample) else { throw ValidationError("--log-sample-valid must be from 0 to 1, got \(sample)") }

        let keyCache = JWKSCache(logger: Logger.keyWarningsOnly)
        let set: ServedPolicies
        do {
            set = try ServedPolicies(directory: options.policies ?? file!.policies, keyCache: keyCache)
        } catch {
            Diagnostics.print(error.sorted)
            throw ExitCode(2)
        }
        if let file {
            let problems = file.problems(with: set.current)
            Diagnostics.print(problems)
            guard !problems.contains(where: { $0.severity == .error }) else { throw ExitCode(2) }
        }
        var logger = Logger(label: "policy-engine.serve")
        logger.logLevel = .info
        // Made before --check returns: a password variable that is not set is the file's mistake.
        let replayStore: any ReplayStore
        do {
            replayStore = try (file?.replayStore ?? .memory(capacity: 1_000_000)).store(environment: ProcessInfo.processInfo.environment, logger: logger)
        } catch {
            Diagnostics.print(error.sorted)
            throw ExitCode(2)
        }
        let names = set.current.policies.keys.sorted().joined(separator: ", ")
        if options.check {
            print("ok: \(options.config ?? options.policies!) serves \(names)\(configuration.routes.isEmpty ? "" : " (\(configuration.routes.count) route\(configuration.routes.count == 1 ? "" : "s"))")")
            return
        }

        let log: DecisionLog
        if let path = options.decisionLogFile ?? file?.decisionLogFile {
            do {
                log = try DecisionLog(level: level, sampleValid: sample, fields: fields, file: path)
            } catch {
                throw ValidationError(error.description)
            }
        } else {
            log = DecisionLog(level: level, sampleValid: sample, fields: fields)
        }
        let server = PolicyServer(policies: set, configuration: configuration, decisionLog: log, replayStore: replayStore)
        // SIGHUP reopens the decision log and reloads the policies, as daemons do.
        signal(SIGHUP, SIG_IGN)
        let hangup = DispatchSource.makeSignalSource(signal: SIGHUP)
        hangup.setEventHandler { [logger] in server.hangUp(logger: logger) }
        hangup.resume()
        defer { hangup.cancel() }
        let host = configuration.host
        do {
            try await server.run(logger: logger, watchEvery: file == nil ? .seconds(1) : file!.watchEvery) { port in
                FileHandle.standardError.write(Data("serving \(names) on \(host):\(port)\n".utf8))
            }
        } catch let error as PolicyServer.ListenError {
            FileHandle.standardError.write(Data("error: \(InertText.escaped(error.description))\n".utf8))
            throw ExitCode(2)
        }
    }
}
