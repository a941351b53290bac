internal import Foundation
@_spi(RuleAuthoring) package import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime

/// A token split into what `policy-run decode` and the playground show: its header, its claims
/// when they can be read, and a line saying what it is. Nothing is verified.
package struct TokenView: Sendable {
    /// The (first) protected header.
    package let header: JSONObject
    /// The payload as JSON; nil for a JWE, or a payload that is not JSON.
    package let claims: JSONValue?
    /// What the token is, and that it is not verified (`decode`).
    package let summary: String
    /// What the token is, without the note on verification: for a page that shows the verdict
    /// beside it (the playground).
    package let description: String

    /// Claims that hold NumericDate values (RFC 7519 §2), shown with their calendar date.
    package static let dateClaims: Set<String> = ["exp", "nbf", "iat", "auth_time", "updated_at"]

    /// Splits `token`: compact or JSON-serialized, JWS or JWE.
    ///
    /// - Throws: `JOSEError` when its structure is not strictly valid.
    package init(_ token: String) throws {
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
                description = summary
            } else {
                let signatures = try JSONSerializedJWS.signatures(token, limits: .standard)
                header = signatures[0].header.object
                claims = (try? signatures[0].claims()).map(JSONValue.object) ?? (try? JSONParser().parse(signatures[0].payload))
                description = "JWS JSON serialization with \(signatures.count) signature\(signatures.count == 1 ? "" : "s") ("
                    + signatures.map { "\($0.algorithm.rawValue)\($0.keyID.map { " kid '\($0)'" } ?? "")" }.joined(separator: ", ")
                    + "); the first signature's protected header shown"
                summary = description + " — NOT verified"
            }
        } else if parts == 5 {
            let jwe = try CompactJWE(token)
            header = jwe.header.object
            claims = nil
            summary = "JWE (\(jwe.keyAlgorithm.rawValue), \(jwe.contentEncryption.rawValue)); payload encrypted, not shown"
            description = summary
        } else {
            let jws = try CompactJWS(token)
            header = jws.header.object
            claims = (try? jws.claims()).map(JSONValue.object) ?? (try? JSONParser().parse(jws.payload))
            let payloadNote = claims == nil ? "; payload of \(jws.payload.count) bytes is not JSON" : ""
            summary = "JWS \(jws.algorithm.rawValue), signature of \(jws.signature.count) bytes — NOT verified\(payloadNote)"
            description = "JWS \(jws.algorithm.rawValue), signature of \(jws.signature.count) bytes\(payloadNote)"
        }
    }

    /// `{header, claims, verified: false}`, as `decode --format json` prints it.
    package var json: JSONValue {
        .object(JSONObject([
            "header": .object(header),
            "claims": claims ?? .null,
            "verified": .bool(false)]))
    }

    /// The header and the claims, pretty-printed, dates noted, escaped for a terminal.
    package var text: String {
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

    /// The UTC date of a NumericDate claim, for its annotation.
    package static func dateNote(_ name: String, _ value: JSONValue) -> String? {
        guard TokenView.dateClaims.contains(name), let seconds = value.numberValue?.doubleValue, seconds.isFinite,
              abs(seconds) < 253_402_300_800 else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}
