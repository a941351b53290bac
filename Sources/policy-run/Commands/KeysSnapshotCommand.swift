import ArgumentParser
import Foundation
import PolicyRuntime
import PolicyJOSE

/// `policy-run keys snapshot`: fetches a policy's remote key sets and stores them as a history.
struct KeysSnapshotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Store the key sets a policy's remote sources publish now, for judging old logs with the keys of their time.",
        discussion: """
        Each jwks_uri or discovery source is fetched now; its JWKS is stored in the directory under \\
        the SHA-256 of its bytes, and a line (source, time seen, file) is appended to snapshots.jsonl. \\
        A source with 'history: DIR' is stored there; --out names the directory for the others. Run \\
        it on a schedule (cron, a CI job): a key counts from the first snapshot that holds it to the \\
        first one that no longer does (docs/policy-format.md, key history). \\
        Exit status: 0 every remote source was stored, 1 a source failed, 2 usage or policy error.
        """
    )

    @OptionGroup var options: PolicyFileOptions

    @Option(help: ArgumentHelp("The history directory for sources that name none (and instead of theirs).", valueName: "DIR"),
            completion: .directory)
    var out: String?

    @Option(help: ArgumentHelp("Record the sets as seen at TIME (unix seconds or RFC 3339) instead of now: for tests, and for sets saved earlier.",
                               valueName: "TIME"))
    var seen: String?

    func run() async throws {
        let policy = try options.compiledPolicy()
        let seenAt = (try seen.map { try TimeArgument.time($0, option: "--seen") } ?? .now).seconds
        var remotes: [(RemoteKeySource, directory: String?)] = []
        for source in policy.keySources {
            switch source.origin {
            case let .remote(remote): remotes.append((remote, out))
            case let .history(history, remote): remotes.append((remote, out ?? history.directory))
            case .local, .tokenCertificate: continue
            }
        }
        guard !remotes.isEmpty else { throw ValidationError("\(options.policy) has no remote key source (jwks_uri, discovery) to snapshot") }
        if let unplaced = remotes.first(where: { $0.directory == nil }) {
            throw ValidationError("\(InertText.escaped(unplaced.0.description)) names no history directory: give --out DIR")
        }
        var failed = false
        var done: Set<String> = []
        for (remote, directory) in remotes where done.insert("\(remote)\u{0}\(directory!)").inserted {
            do {
                let (bytes, keys) = try await remote.fetchDocument()
                let (snapshot, isNew) = try KeyHistory.store(bytes, of: remote.description, seen: seenAt, in: directory!)
                let kids = keys.keys.map { $0.kid ?? "(no kid)" }.joined(separator: ", ")
                print("\(InertText.escaped(remote.description)): \(keys.keys.count) key\(keys.keys.count == 1 ? "" : "s") (\(InertText.escaped(kids))) -> "
                      + "\(InertText.escaped(directory!))/\(snapshot.file) seen \(snapshot.seen.iso8601)\(isNew ? "" : " (set unchanged)")")
            } catch let error as KeyFetchError {
                FileHandle.standardError.write(Data("error: \(InertText.escaped(remote.description)): \(error.code.rawValue): \(InertText.escaped(error.message))\n".utf8))
                failed = true
            } catch let error as KeyHistory.LoadError {
                FileHandle.standardError.write(Data("error: \(InertText.escaped(remote.description)): \(InertText.escaped(error.message))\n".utf8))
                failed = true
            }
        }
        if failed { throw ExitCode(1) }
    }
}
