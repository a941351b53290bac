import ArgumentParser
import Foundation
import PolicyRuntime
import PolicyJOSE

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

    /// Claims that hold NumericDate values (RFC 7519 §2), shown with their calendar date.
    static let dateClaims: Set<String> = ["exp", "nbf", "iat", "auth_time", "updated_at"]

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

/// A token split into what `decode` shows.
struct TokenView {
    let header: JSONObject
    let claims: JSONValue?
    let summary: String

    init(_ token: String) throws {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).count
        if JSONSerializedJWS.isJSON(token) {
            // A JSON serialization: a JWS carries a payload, a JWE a ciphertext.
            if (try? JSONParser().parseObject(Array(token.utf8), what: "the token"))?["ciphertext"] != nil {
                let recipients = try JSONSerializedJWE.recipients(token, limits: .standard)
                header = recipients[0].protectedHeader.object
                claims = nil
                summary = "JWE JSON serialization for \(recipients.count) recipient\(recipients.count == 1 ? "" : "s") ("
                    + recipients.map { "\($0.keyAlgorithm.rawValue)\($0.header.kid.map { " kid '\($0)'" } ?? "")" }.joined(separator: ", ")
                    + "); protected header shown, payload encrypted, not shown"
            } else {
                let signatures = try JSONSerializedJWS.signatures(token, limits: .standard)
                header = signatures[0].header.object
                claims = (try? signatures[0].claims()).map(JSONValue.object) ?? (try? JSONParser().parse(signatures[0].payload))
                summary = "JWS JSON serialization with \(signatures.count) signature\(signatures.count == 1 ? "" : "s") ("
                    + signatures.map { "\($0.algorithm.rawValue)\($0.keyID.map { " kid '\($0)'" } ?? "")" }.joined(separator: ", ")
                    + "); the first signature's protected header shown — NOT verified"
            }
        } else if parts == 5 {
            let jwe = try CompactJWE(token)
            header = jwe.header.object
            claims = nil
            summary = "JWE (\(jwe.keyAlgorithm.rawValue), \(jwe.contentEncryption.rawValue)); payload encrypted, not shown"
        } else {
            let jws = try CompactJWS(token)
            header = jws.header.object
            claims = (try? jws.claims()).map(JSONValue.object) ?? (try? JSONParser().parse(jws.payload))
            let payloadNote = claims == nil ? "; payload of \(jws.payload.count) bytes is not JSON" : ""
            summary = "JWS \(jws.algorithm.rawValue), signature of \(jws.signature.count) bytes — NOT verified\(payloadNote)"
        }
    }

    var json: JSONValue {
        .object(JSONObject([
            "header": .object(header),
            "claims": claims ?? .null,
            "verified": .bool(false)]))
    }

    var text: String {
        var lines = ["Header:", JSONValue.object(header).prettyPrinted()]
        if let claims {
            lines += ["Claims:", claims.prettyPrinted(annotate: TokenView.dateNote)]
        }
        lines.append(summary)
        // JSON text holds no raw newline of its own, so each line is escaped alone: DEL, C1
        // controls and bidirectional overrides pass the JSON writer unescaped.
        return lines.joined(separator: "\n").split(separator: "\n", omittingEmptySubsequences: false)
            .map(InertText.escaped).joined(separator: "\n")
    }

    static func dateNote(_ name: String, _ value: JSONValue) -> String? {
        guard DecodeCommand.dateClaims.contains(name), let seconds = value.numberValue?.doubleValue, seconds.isFinite,
              abs(seconds) < 253_402_300_800 else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}
