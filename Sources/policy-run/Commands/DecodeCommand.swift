import ArgumentParser
import Foundation
import PolicyRuntime
import PolicyJOSE
import PolicyAuthoring

/// `policy-run decode`: shows a token's header and claims without verifying anything.
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Show a token's header and claims, with times as dates. Verifies nothing.",
        discussion: """
        TOKEN is a JWS or JWE, compact or in JSON serialization, '-' to read it from standard \
        input, or @FILE to read it from a file. The token's structure is checked strictly \
        (base64url, JSON, alg); its signature is not: use 'policy-run check' for that. Exit \
        status: 0 decoded, 2 malformed.
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Argument(help: "The token, '-' for standard input, or @FILE.")
    var token: String

    @Option(help: "Output format: text (for people) or json.")
    var format: Format = .text

    func run() throws {
        let text = try TokenArgument.read(token)
        let decoded: TokenView
        do {
            decoded = try TokenView(text)
        } catch let error as JOSEError {
            FileHandle.standardError.write(Data("error: \(InertText.escaped(error.description))\n".utf8))
            throw ExitCode(2)
        }
        switch format {
        case .json: print(decoded.json.prettyPrinted())
        case .text: print(decoded.text)
        }
    }
}
