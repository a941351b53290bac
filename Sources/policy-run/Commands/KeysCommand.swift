import ArgumentParser
import Foundation
import PolicyRuntime
import PolicyJOSE
import PolicyCrypto

/// `policy-run keys`: fetches and lists every key a policy would use, to debug rotation.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "List the keys a policy resolves: kid, type, alg, size, source and when they were fetched.",
        discussion: """
        Remote sources (jwks_uri, discovery) are fetched now, as the policy would fetch them; a source \
        judged by its history lists the keys of its newest snapshot. \
        Exit status: 0 every source supplied keys, 1 a source failed, 2 usage or policy error.
        """,
        subcommands: [KeysSnapshotCommand.self]
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @OptionGroup var options: PolicyFileOptions

    @Option(help: "Output format: text (a table) or json (one object per key).")
    var format: Format = .text

    func run() async throws {
        let policy = try options.compiledPolicy()
        var rows: [KeyRow] = []
        var notes: [String] = []
        var failures: [SourceFailure] = []
        for source in policy.keySources {
            let keys: JWKSet
            var fetchedAt: Double?
            switch source.origin {
            case let .local(local):
                keys = local
            case let .remote(remote):
                switch await policy.keyCache.resolve(remote, kid: nil, untilFetched: true) {
                case let .available(resolved):
                    keys = resolved.keys
                    fetchedAt = resolved.fetchedAt.map { $0.timeIntervalSince1970.rounded(.down) }
                case let .unavailable(error):
                    failures.append(SourceFailure(source: remote.description, code: error.code.rawValue, message: error.message))
                    continue
                }
            case let .history(history, _):
                guard case let .keys(newest, snapshot) = history.keys(at: .infinity) else {
                    failures.append(SourceFailure(source: source.description, code: "no_snapshot", message: "\(history.directory) holds no snapshot yet"))
                    continue
                }
                keys = newest
                fetchedAt = snapshot.seen.seconds
            case .tokenCertificate:
                keys = try JWKSet(keys: [])
            }
            rows += keys.keys.map { KeyRow($0, source: source.description, purpose: source.purpose, fetchedAt: fetchedAt) }
            for skipped in keys.skipped {
                notes.append("\(source.description): key \(skipped.index)\(skipped.kid.map { " (\($0))" } ?? "") ignored: \(skipped.error.message)")
            }
            if let trust = source.certificateTrust {
                notes.append("\(trust.description): keys from a token's x5c chain issued under \(trust.anchorSubjects.joined(separator: "; "))")
            }
        }
        switch format {
        case .json:
            print(JSONValue.object(JSONObject(["keys": .array(rows.map(\.json)), "notes": .array(notes.map { .string($0) }),
                                               "errors": .array(failures.map(\.json))])).prettyPrinted())
        case .text:
            for failure in failures { FileHandle.standardError.write(Data((failure.line + "\n").utf8)) }
            if !rows.isEmpty { print(KeyRow.table(rows)) }
            for note in notes { print(InertText.escaped(note)) }
        }
        if !failures.isEmpty { throw ExitCode(1) }
    }
}

/// A key source that supplied no keys: on standard error as text, in the `errors` of the JSON.
struct SourceFailure {
    /// The source as the policy writes it (`jwks_uri https://...`).
    let source: String
    /// The fetch error's code (`transport`, `http_status`, ...), or `no_snapshot` for a history
    /// that holds none yet.
    let code: String
    let message: String

    /// `error: SOURCE: CODE: MESSAGE`, escaped for a terminal.
    var line: String { "error: \(InertText.escaped(source)): \(code): \(InertText.escaped(message))" }

    /// `{"source", "code", "message"}`.
    var json: JSONValue {
        .object(JSONObject(["source": .string(source), "code": .string(code), "message": .string(message)]))
    }
}

/// One key as `keys` lists it: typed for JSON, shown with `-` for what is absent in the table.
struct KeyRow {
    let kid: String?
    let type: String
    /// The declared alg, else every algorithm the key may verify (its family's).
    let algorithms: [String]
    /// RSA and secret key sizes.
    let bits: Int?
    /// EC and OKP curves.
    let curve: String?
    let use: String
    let source: String
    /// Unix seconds of the fetch, for remote sets.
    let fetchedAt: Double?

    init(_ key: JWK, source: String, purpose: KeySource.Purpose, fetchedAt: Double?) {
        kid = key.kid
        switch key.type {
        case .rsa: (type, bits, curve) = ("RSA", key.bits, nil)
        case let .ec(name): (type, bits, curve) = ("EC", nil, name.jwkName)
        case let .okp(name): (type, bits, curve) = ("OKP", nil, name.rawValue)
        case .oct: (type, bits, curve) = ("oct", key.bits, nil)
        }
        algorithms = key.algorithm.map { [$0] } ?? (purpose == .verification ? key.verifiableAlgorithms.map(\.rawValue) : [])
        use = switch purpose {
        case .verification: "verify"
        case .decryption: "decrypt"
        case .encryption: "encrypt"
        }
        self.source = source
        self.fetchedAt = fetchedAt
    }

    var json: JSONValue {
        .object(JSONObject([
            "kid": kid.map { .string($0) } ?? .null, "kty": .string(type), "alg": .array(algorithms.map { .string($0) }),
            "bits": bits.map { .number(.integer(Int64($0))) } ?? .null, "crv": curve.map { .string($0) } ?? .null,
            "use": .string(use), "source": .string(source), "fetched_at": fetchedAt.map { .string(UnixTime.iso8601($0)) } ?? .null,
        ]))
    }

    /// The row's cells as the table shows them.
    var cells: [String] {
        [kid ?? "-", type, algorithms.isEmpty ? "-" : algorithms.joined(separator: ","), bits.map { "\($0) bits" } ?? curve ?? "-", use, source,
         fetchedAt.map(UnixTime.iso8601) ?? "-"]
    }

    static func table(_ rows: [KeyRow]) -> String {
        let header = ["KID", "KTY", "ALG", "SIZE", "USE", "SOURCE", "FETCHED"]
        // A fetched set's kids come from the network: escaped before they are laid out.
        let cells = [header] + rows.map { $0.cells.map(InertText.escaped) }
        let widths = header.indices.map { column in cells.map { $0[column].count }.max()! }
        return cells.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
