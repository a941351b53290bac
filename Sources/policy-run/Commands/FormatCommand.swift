import ArgumentParser
import Foundation
import PolicyCommandLine
import PolicyAuthoring
import PolicyRuntime
import PolicyJOSE

/// `policy-run fmt`: rewrites policy files in the one canonical layout, or checks that they are.
struct FormatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fmt",
        abstract: "Format policy and policy test files in the canonical layout (key order, indentation, quoting), comments kept.",
        discussion: """
        Files are rewritten in place; with --check nothing is written, and each file that is not \
        in the layout is named with a diff of its first difference. A file whose layout cannot \
        be made canonical without changing what it means is left as it is, with an error. \
        Exit status: 0 every file is (now) canonical, 1 with --check when one is not, 2 a file \
        that cannot be read or formatted.
        """
    )

    @Flag(help: "Write nothing; exit 1 when a file is not in the canonical layout.")
    var check = false

    @Argument(help: "Policy and test files (.yaml).")
    var files: [String]

    func run() throws {
        var unformatted = 0
        var failed = false
        let formatter = PolicyFormatter()
        for file in files {
            let text: String
            do {
                text = try Self.read(file, maxBytes: formatter.loader.maxFileBytes)
            } catch {
                FileHandle.standardError.write(Data("error: \(error.message)\n".utf8))
                failed = true
                continue
            }
            let formatted: String
            do {
                formatted = try formatter.format(text, file: file)
            } catch {
                FileHandle.standardError.write(Data("error: \(InertText.escaped(error.description))\n".utf8))
                failed = true
                continue
            }
            guard formatted != text else { continue }
            unformatted += 1
            if check {
                print("\(file): not in the canonical layout")
                print(FirstDifference(old: text, new: formatted).rendered)
            } else {
                do {
                    try OutputFile.write(formatted, to: file)
                } catch {
                    FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
                    failed = true
                    continue
                }
                print("formatted \(file)")
            }
        }
        if failed { throw ExitCode(2) }
        if check, unformatted > 0 { throw ExitCode(1) }
    }

    /// The text of `file`: a UTF-8 file of at most `maxBytes` bytes.
    static func read(_ file: String, maxBytes: Int) throws(InputFile.Failure) -> String {
        let handle = try InputFile.open(file)
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: maxBytes + 1) ?? Data()
        } catch {
            throw InputFile.Failure(path: file, reason: "\(error.localizedDescription)")
        }
        guard data.count <= maxBytes else { throw InputFile.Failure(path: file, reason: "larger than \(maxBytes) bytes") }
        guard let text = String(data: data, encoding: .utf8) else { throw InputFile.Failure(path: file, reason: "not UTF-8 text") }
        return text
    }
}

/// The first lines where two texts differ, as a small unified diff.
struct FirstDifference {
    let old: String
    let new: String

    var rendered: String {
        let a = old.split(separator: "\n", omittingEmptySubsequences: false)
        let b = new.split(separator: "\n", omittingEmptySubsequences: false)
        var start = 0
        while start < min(a.count, b.count), a[start] == b[start] { start += 1 }
        let shown = 4
        var lines = ["@@ line \(start + 1) @@"]
        lines += a[start..<min(a.count, start + shown)].map { "-" + InertText.escaped(String($0)) }
        lines += b[start..<min(b.count, start + shown)].map { "+" + InertText.escaped(String($0)) }
        return lines.joined(separator: "\n")
    }
}
