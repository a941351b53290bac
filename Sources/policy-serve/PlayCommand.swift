import ArgumentParser
import Foundation
import Logging
import PolicyCommandLine
import PolicyPlayground
import PolicyRuntime
import PolicyServer

/// `policy-serve play` (run as `policy-run play`): the playground page for a policy directory.
struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy-run play",
        abstract: "Edit a policy and a token side by side in a local web page: diagnostics as you type, the verdict and its trace, the policy's tests.",
        discussion: """
        Serves a page on loopback (127.0.0.1:8182 by default) for the policies of DIR, at the \
        address it prints (with the session's token, which the page's calls need): pick one \
        or start a new one, type, and see its diagnostics on their lines, a pasted token decoded \
        and judged with its trace, and its NAME.test.yaml cases run against the text being edited. \
        Nothing is written unless Save is pressed. SIGINT (Ctrl-C) or SIGTERM stops it. Exit \
        status: 0 stopped, 2 usage error (a missing directory, an address that is not loopback \
        without --allow-remote, a port in use).
        """
    )

    @OptionGroup var options: PlayOptions

    func run() async throws {
        // Read as `serve` reads its --listen.
        var address = PolicyServer.Configuration()
        guard address.listen(on: options.listen) else { throw ValidationError("--listen expects HOST:PORT, got '\(options.listen)'") }
        let port = address.port
        // `[::1]:8182` binds ::1.
        let host = address.host.hasPrefix("[") && address.host.hasSuffix("]") ? String(address.host.dropFirst().dropLast()) : address.host
        guard options.allowRemote || PlaygroundServer.isLoopback(host) else {
            throw ValidationError("--listen \(options.listen) is not a loopback address: the playground compiles what it is sent and saves files; add --allow-remote to serve it there anyway")
        }
        let workspace: PlaygroundWorkspace
        do {
            workspace = try PlaygroundWorkspace(directory: options.directory)
        } catch {
            throw ValidationError(error.message)
        }
        let playground = try Playground(workspace: workspace, keyCache: JWKSCache(logger: Logger.keyWarningsOnly))
        var logger = Logger(label: "policy-engine.play")
        logger.logLevel = .warning
        let shown = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let directory = InertText.escaped(options.directory)
        do {
            let server = PlaygroundServer(playground: playground, host: host, port: port, acceptsAnyHost: options.allowRemote && !PlaygroundServer.isLoopback(host))
            let token = server.token
            try await server.run(logger: logger) { bound in
                let names = workspace.entries().count
                FileHandle.standardError.write(Data("""
                    playground for \(names) polic\(names == 1 ? "y" : "ies") of \(directory): http://\(shown):\(bound)/?token=\(token)
                    open that address (its token lets the page call the playground); nothing is saved unless you press Save; Ctrl-C stops it

                    """.utf8))
            }
        } catch {
            FileHandle.standardError.write(Data("error: the playground could not listen on \(InertText.escaped(options.listen)): \(InertText.escaped("\(error)"))\n".utf8))
            throw ExitCode(2)
        }
    }
}
