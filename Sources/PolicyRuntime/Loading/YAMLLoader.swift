internal import Foundation
internal import Yams
@_spi(RuleAuthoring) import PolicyJOSE

/// Reads a policy file into a `YAMLNode` tree, strictly.
///
/// YAML 1.2 core typing (only `true`/`false` are booleans), duplicate keys refused, alias expansion
/// bounded by a node budget (a "billion laughs" file fails in milliseconds), a size cap, UTF-8 only.
/// Ambiguous YAML 1.1 booleans such as `yes` stay strings and are reported as warnings.
package struct YAMLLoader: Sendable {
    /// The largest policy file accepted, in bytes.
    package var maxFileBytes: Int
    /// The most nodes the document may hold once every alias is expanded.
    package var maxNodes: Int
    /// Where a compile keeps what each file read gave, to compile copies from (`CompileReads`);
    /// nil reads from disk and keeps nothing.
    package var reads: CompileReads?

    /// A loader that refuses files over `maxFileBytes` and documents expanding past `maxNodes` (alias bombs).
    package init(maxFileBytes: Int = 1 << 20, maxNodes: Int = 100_000) {
        self.maxFileBytes = maxFileBytes
        self.maxNodes = maxNodes
    }

    /// Loads a file; the location of every node names `displayPath`.
    ///
    /// With `keepingDuplicateKeys`, a key written twice in a mapping is an error in `warnings`
    /// (the later entry left out) instead of ending the load, so a compile can report the
    /// file's other problems in the same pass.
    package func load(file path: String, displayPath: String? = nil, keepingDuplicateKeys: Bool = false) throws(PolicyDiagnostics) -> (node: YAMLNode, warnings: [Diagnostic]) {
        try load(text: read(file: path, displayPath: displayPath), file: displayPath ?? path, keepingDuplicateKeys: keepingDuplicateKeys)
    }

    /// The text of a file, read once within the size cap and checked to be UTF-8: what `load`
    /// parses, for a caller that keeps the text too.
    package func read(file path: String, displayPath: String? = nil) throws(PolicyDiagnostics) -> String {
        let shown = displayPath ?? path
        guard let bytes = try reads.bytes(of: path, { () throws(PolicyDiagnostics) in try bytes(ofFile: path, shown: shown) }) else {
            throw PolicyDiagnostics([Diagnostic(.error, .fileUnreadable, "cannot read \(path): the compile this one copies did not read it",
                                                at: SourceLocation(file: shown, line: 1, column: 1))])
        }
        return try text(of: bytes, file: shown)
    }

    /// The bytes of a file, read once within the size cap.
    private func bytes(ofFile path: String, shown: String) throws(PolicyDiagnostics) -> [UInt8] {
        let start = SourceLocation(file: shown, line: 1, column: 1)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw PolicyDiagnostics([Diagnostic(.error, .fileUnreadable, "\(path) is a directory, not a policy file", at: start,
                                                hint: "name a .yaml file; lint takes several files, e.g. Policies/*.yaml")])
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw PolicyDiagnostics([Diagnostic(.error, .fileUnreadable, "cannot read \(path): no such file, or not readable", at: start)])
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: maxFileBytes + 1)) ?? Data()
        guard data.count <= maxFileBytes else {
            throw PolicyDiagnostics([Diagnostic(.error, .fileUnreadable, "the file is larger than \(maxFileBytes) bytes", at: start)])
        }
        return Array(data)
    }

    /// Loads YAML from bytes, which must be UTF-8.
    package func load(bytes: [UInt8], file: String, keepingDuplicateKeys: Bool = false) throws(PolicyDiagnostics) -> (node: YAMLNode, warnings: [Diagnostic]) {
        try load(text: text(of: bytes, file: file), file: file, keepingDuplicateKeys: keepingDuplicateKeys)
    }

    /// `bytes` as text, refused over the size cap or when not UTF-8.
    private func text(of bytes: [UInt8], file: String) throws(PolicyDiagnostics) -> String {
        let start = SourceLocation(file: file, line: 1, column: 1)
        guard bytes.count <= maxFileBytes else {
            throw PolicyDiagnostics([Diagnostic(.error, .fileUnreadable, "the file is larger than \(maxFileBytes) bytes", at: start)])
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            let offset = YAMLLoader.firstInvalidUTF8Offset(bytes)
            throw PolicyDiagnostics([Diagnostic(.error, .fileUnreadable, "the file is not valid UTF-8 (first bad byte at offset \(offset))", at: start)])
        }
        return text
    }

    /// The most duplicate keys one load goes on past.
    static let maxDuplicateKeys = 50

    /// Loads YAML text; its diagnostics carry the lines they point at.
    package func load(text: String, file: String, keepingDuplicateKeys: Bool = false) throws(PolicyDiagnostics) -> (node: YAMLNode, warnings: [Diagnostic]) {
        do {
            let (node, warnings) = try parse(text: text, file: file, keepingDuplicateKeys: keepingDuplicateKeys)
            return (node, warnings.map { $0.attachingSourceLine(from: [file: text]) })
        } catch {
            throw error.attachingSourceLines(from: [file: text])
        }
    }

    private func parse(text: String, file: String, keepingDuplicateKeys: Bool) throws(PolicyDiagnostics) -> (node: YAMLNode, warnings: [Diagnostic]) {
        var root: Node?
        var source = text
        var duplicates = PolicyDiagnostics()
        while true {
            do {
                // Scalars are typed by `convert`, not by Yams: its default resolver would compile
                // seven ICU regular expressions at the first load (~9 M instructions a process).
                root = try Parser(yaml: source, resolver: .basic).singleRoot()
                break
            } catch let error as YamlError {
                let diagnostic = YAMLLoader.diagnostic(for: error, file: file, text: source)
                // Yams stops at a duplicate key: rename the later occurrence to a key the
                // converter leaves out, and parse again, so the rest of the file is still read.
                guard keepingDuplicateKeys, case let .duplicatedKeysInMapping(names, context) = error, let name = names.first,
                      duplicates.items.count < Self.maxDuplicateKeys,
                      let renamed = Self.renamingSecondOccurrence(of: name, after: context.mark, in: source, index: duplicates.items.count) else {
                    duplicates.append(diagnostic)
                    throw duplicates
                }
                duplicates.append(diagnostic)
                source = renamed
            } catch {
                throw PolicyDiagnostics([Diagnostic(.error, .yamlSyntax, "\(error)", at: SourceLocation(file: file, line: 1, column: 1))])
            }
        }
        guard let root else {
            throw PolicyDiagnostics([Diagnostic(.error, .wrongType, "the file is empty; a policy is a mapping with at least a 'policy' key", at: SourceLocation(file: file, line: 1, column: 1))])
        }
        var converter = NodeConverter(file: file, budget: maxNodes)
        let node = converter.convert(root, path: "")
        converter.diagnostics.append(contentsOf: duplicates)
        let recoverable = converter.diagnostics.errors.allSatisfy { $0.code == .duplicateKey }
        if converter.diagnostics.hasErrors, !(keepingDuplicateKeys && recoverable) { throw converter.diagnostics }
        return (node, converter.diagnostics.items)
    }

    /// The key the later occurrence of a duplicate becomes; the converter drops such keys.
    static func duplicatePlaceholder(_ index: Int) -> String { "__duplicate_key_\(index)__" }

    /// `text` with the second occurrence of `key` (after `first`) renamed to a placeholder.
    static func renamingSecondOccurrence(of key: String, after first: Mark, in text: String, index: Int) -> String? {
        guard let second = secondOccurrence(of: key, after: first, in: text) else { return nil }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let line = lines[second.line - 1]
        let start = line.index(line.startIndex, offsetBy: second.column - 1)
        let rest = line[start...]
        guard let spelling = [key, "\"\(key)\"", "'\(key)'"].first(where: { rest.hasPrefix($0 + ":") }) else { return nil }
        lines[second.line - 1] = String(line[..<start]) + duplicatePlaceholder(index) + rest.dropFirst(spelling.count)
        return lines.joined(separator: "\n")
    }

    static func firstInvalidUTF8Offset(_ bytes: [UInt8]) -> Int {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case let .valid(scalar): offset += scalar.count
            case .error, .emptyInput: return offset
            }
        }
    }

    static func diagnostic(for error: YamlError, file: String, text: String) -> Diagnostic {
        func located(_ problem: String, _ context: YamlError.Context?, _ mark: Mark) -> Diagnostic {
            var message = problem
            if let context, !context.text.isEmpty { message += " (\(context.text))" }
            let line = text.lineText(mark.line) ?? ""
            let hint: String?
            if line.prefix(while: { $0 == " " || $0 == "\t" }).contains("\t") {
                hint = "YAML indentation must use spaces, not tabs"
            } else if line.contains("${"), context?.text.contains("flow") == true {
                hint = "inside { } or [ ], quote a value that refers to an input: '${name}'"
            } else {
                hint = nil
            }
            return Diagnostic(.error, .yamlSyntax, message, at: SourceLocation(file: file, line: mark.line, column: mark.column), hint: hint)
        }
        switch error {
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _):
            return located(problem, context, mark)
        case let .composer(context, problem, mark, _):
            if problem.contains("undefined alias") {
                return Diagnostic(.error, .yamlSyntax, "an alias refers to an anchor that is not defined before it", at: SourceLocation(file: file, line: mark.line, column: mark.column))
            }
            return located(problem, context, mark)
        case let .reader(problem, offset, _, _):
            return Diagnostic(.error, .fileUnreadable, "\(problem)\(offset.map { " at byte \($0)" } ?? "")", at: SourceLocation(file: file, line: 1, column: 1))
        case let .duplicatedKeysInMapping(duplicates, context):
            let name = duplicates.first ?? "?"
            let first = context.mark
            let second = secondOccurrence(of: name, after: first, in: text) ?? (first.line, first.column)
            return Diagnostic(.error, .duplicateKey, "duplicate key '\(name)' (first written at line \(first.line))",
                              at: SourceLocation(file: file, line: second.line, column: second.column),
                              hint: "a mapping may name each key once; merge the two entries")
        default:
            return Diagnostic(.error, .yamlSyntax, "\(error)", at: SourceLocation(file: file, line: 1, column: 1))
        }
    }

    /// Where a duplicated key is written again: Yams reports only the first occurrence.
    private static func secondOccurrence(of key: String, after first: Mark, in text: String) -> (line: Int, column: Int)? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard first.line <= lines.count else { return nil }
        for number in first.line..<lines.count {
            let line = lines[number]
            let column = first.column - 1
            guard line.count > column else { continue }
            let rest = line.dropFirst(column)
            for spelling in [key, "\"\(key)\"", "'\(key)'"] where rest.hasPrefix(spelling + ":") {
                if line.prefix(column).allSatisfy({ $0 == " " || $0 == "-" }) {
                    return (number + 1, first.column)
                }
            }
        }
        return nil
    }
}

/// Converts Yams nodes into `YAMLNode`s, counting every node it produces against the budget.
private struct NodeConverter {
    let file: String
    var budget: Int
    var diagnostics = PolicyDiagnostics()
    private var exhausted = false

    init(file: String, budget: Int) {
        self.file = file
        self.budget = budget
    }

    func location(_ mark: Mark?) -> SourceLocation {
        SourceLocation(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1)
    }

    mutating func convert(_ node: Node, path: String) -> YAMLNode {
        let here = location(node.mark)
        let empty = YAMLNode(.scalar(YAMLScalar(text: "", isPlain: true)), location: here, path: path)
        guard !exhausted else { return empty }
        budget -= 1
        if budget < 0 {
            exhausted = true
            diagnostics.append(Diagnostic(.error, .aliasBudget, "the document expands to more nodes than the limit allows (aliases repeat too much)", at: here, path: path,
                                          hint: "a policy should not need anchors that multiply; write the values out"))
            return empty
        }
        switch node {
        case let .scalar(scalar):
            return YAMLNode(.scalar(convert(scalar, at: here, path: path)), location: here, path: path)
        case let .alias(alias):
            diagnostics.append(Diagnostic(.error, .yamlSyntax, "unresolved alias '\(alias.anchor)'", at: here, path: path))
            return empty
        case let .sequence(sequence):
            checkTag(sequence.tag, expected: .seq, at: here, path: path)
            var items: [YAMLNode] = []
            for (index, item) in sequence.enumerated() {
                items.append(convert(item, path: "\(path)[\(index)]"))
            }
            return YAMLNode(.sequence(items), location: here, path: path)
        case let .mapping(mapping):
            checkTag(mapping.tag, expected: .map, at: here, path: path)
            var pairs: [YAMLPair] = []
            for (key, value) in mapping {
                let keyLocation = location(key.mark)
                guard case let .scalar(keyScalar) = key else {
                    diagnostics.append(Diagnostic(.error, .wrongType, "mapping keys must be plain names, not a nested mapping or list", at: keyLocation, path: path))
                    continue
                }
                let name = keyScalar.string
                // A duplicate the loader renamed: its error is already reported.
                if name.hasPrefix("__duplicate_key_"), name.hasSuffix("__") { continue }
                if pairs.contains(where: { $0.name == name }) {
                    diagnostics.append(Diagnostic(.error, .duplicateKey, "duplicate key '\(name)'", at: keyLocation, path: path,
                                                  hint: "a mapping may name each key once; merge the two entries"))
                    continue
                }
                let childPath = YAMLNode.join(path, name)
                pairs.append(YAMLPair(name: name, keyLocation: keyLocation, value: convert(value, path: childPath)))
            }
            return YAMLNode(.mapping(pairs), location: here, path: path)
        }
    }

    mutating func convert(_ scalar: Node.Scalar, at here: SourceLocation, path: String) -> YAMLScalar {
        let plain = scalar.style == .plain
        switch scalar.tag.rawValue {
        case Tag.Name.implicit.rawValue:
            let result = YAMLScalar(text: scalar.string, isPlain: plain)
            if plain, YAMLScalar.yaml11Booleans.contains(scalar.string) {
                diagnostics.append(Diagnostic(.warning, .ambiguousScalar,
                                              "'\(scalar.string)' is read as the string \"\(scalar.string)\", not a boolean (YAML 1.2)", at: here, path: path,
                                              hint: "quote it to make the string explicit, or write true/false for a boolean"))
            }
            return result
        case Tag.Name.nonSpecific.rawValue, Tag.Name.str.rawValue:
            return YAMLScalar(text: scalar.string, isPlain: false)
        case Tag.Name.bool.rawValue, Tag.Name.int.rawValue, Tag.Name.float.rawValue, Tag.Name.null.rawValue:
            return YAMLScalar(text: scalar.string, isPlain: true)
        default:
            diagnostics.append(Diagnostic(.error, .unsupportedTag, "the tag '\(scalar.tag)' is not supported in policies", at: here, path: path,
                                          hint: "remove the tag; quote the value if it must be a string"))
            return YAMLScalar(text: scalar.string, isPlain: false)
        }
    }

    mutating func checkTag(_ tag: Tag, expected: Tag.Name, at here: SourceLocation, path: String) {
        let name = tag.rawValue
        guard name != Tag.Name.implicit.rawValue, name != Tag.Name.nonSpecific.rawValue, name != expected.rawValue else { return }
        diagnostics.append(Diagnostic(.error, .unsupportedTag, "the tag '\(tag)' is not supported in policies", at: here, path: path))
    }
}
