import ArgumentParser
import Foundation
import PolicyCommandLine

/// Reads a subject (a token, a callback URL) given on the command line as text, `-` for
/// standard input, or `@FILE`.
enum TokenArgument {
    /// The largest token input read, so a wrong file or an endless pipe cannot exhaust memory.
    static let maximumInputBytes = 1 << 20

    static func read(_ argument: String, what: String = "token") throws -> String {
        let text: String
        if argument == "-" {
            let data = FileHandle.standardInput.readData(ofLength: maximumInputBytes + 1)
            guard data.count <= maximumInputBytes else { throw ValidationError("standard input holds more than \(maximumInputBytes) bytes; expected one \(what)") }
            text = String(decoding: data, as: UTF8.self)
        } else if argument.hasPrefix("@") {
            let path = String(argument.dropFirst())
            let handle = try InputFile.open(path)
            defer { try? handle.close() }
            let data = handle.readData(ofLength: maximumInputBytes + 1)
            guard data.count <= maximumInputBytes else { throw ValidationError("'\(path)' holds more than \(maximumInputBytes) bytes; expected one \(what)") }
            text = String(decoding: data, as: UTF8.self)
        } else {
            text = argument
        }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw ValidationError("the \(what) is empty") }
        // Copied from an Authorization header: the scheme is not part of the token.
        if what == "token", token.prefix(7).lowercased() == "bearer " {
            throw ValidationError("the token starts with 'Bearer ', the scheme of an Authorization header: pass the token alone, without 'Bearer '")
        }
        return token
    }

    /// The bytes of FILE, or of standard input for `-`, up to one byte past the cap so the
    /// reader can tell an oversized input from one that fits.
    static func bytes(_ argument: String) throws -> [UInt8] {
        if argument == "-" { return Array(FileHandle.standardInput.readData(ofLength: maximumInputBytes + 1)) }
        let handle = try InputFile.open(argument)
        defer { try? handle.close() }
        return Array(handle.readData(ofLength: maximumInputBytes + 1))
    }
}
