@_spi(RuleAuthoring) internal import PolicyEngine
@_spi(RuleAuthoring) internal import PolicyJOSE
@_spi(RuleAuthoring) package import PolicyRuntime

/// One canonical layout for policy files (`policy-run fmt`): keys in the order the docs list
/// them, two spaces per block level, quotes only where a value needs them, no trailing spaces,
/// single blank lines; every comment is kept with the key it stands above or beside.
///
/// The formatter works on lines, so it never drops a comment the way a YAML round trip would;
/// and it checks its own output: the formatted text must load to the same document (mapping
/// order aside) or it refuses with `FormatError`, leaving the file as it was.
package struct PolicyFormatter: Sendable {
    /// Top-level keys, in the docs' order; others follow in their own order.
    static let topLevelOrder = ["policy", "description", "extends", "mode", "inputs", "token", "request", "callback", "pkce", "rules", "outputs"]
    /// Each section's keys, in the docs' order (docs/policy-format.md sections 2 and 5).
    static let sectionOrder: [String: [String]] = [
        "token": ["format", "algorithms", "decryption", "keys", "outer_layers", "signatures", "typ", "header", "crit", "issuer", "audience", "trusted_audiences", "authorized_party",
                  "subject", "nonce", "leeway", "expires", "not_before", "issued_at", "max_lifetime", "c_hash", "at_hash", "require", "claims",
                  "embedded_tokens", "limits"],
        "request": ["method", "path", "path_normalization", "headers", "query", "body", "bearer", "encrypted_fields"],
        "callback": ["response_mode", "redirect_uri", "state", "issuer", "require_issuer"],
        "pkce": ["methods", "challenge_method", "verifier", "challenge"],
    ]

    /// How files are loaded to check that formatting kept their meaning.
    package var loader = YAMLLoader()

    /// A formatter with the policy loader's limits.
    package init() {}

    /// `text` in the canonical layout.
    ///
    /// - Parameter file: Names the text in errors.
    /// - Throws: `FormatError` when the text does not load as YAML (format only what compiles),
    ///   or when the layout would change what the file means (a case this formatter cannot
    ///   lay out; the text is then left as it is).
    package func format(_ text: String, file: String) throws(FormatError) -> String {
        let original: YAMLNode
        do {
            original = try loader.load(text: text, file: file).node
        } catch {
            throw FormatError(file: file, message: "it does not load as YAML: \(error.sorted.first?.description ?? "")")
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0) }
        if lines.last == "" { lines.removeLast() }
        var entries = Self.entries(lines.map(SourceLine.init))
        // A test file keeps its own key order; a policy's sections are ordered too.
        let isTestFile = file.hasSuffix(".test.yaml")
        var output: [String] = []
        // Comments at the top, set apart by a blank line, describe the file: they stay first.
        if let first = entries.first, let blank = first.notes.lastIndex(where: { $0.content.isEmpty }) {
            output = first.notes[...blank].map { String($0.content) }.enumerated()
                .filter { offset, line in !(line.isEmpty && offset > 0 && first.notes[offset - 1].content.isEmpty) }.map(\.element)
            entries[0].notes = Array(first.notes[(blank + 1)...])
        }
        Self.render(Self.ordered(entries, isTestFile ? PolicyTestReader.fileKeys : Self.topLevelOrder), indent: 0, path: [],
                    sections: isTestFile ? [:] : Self.sectionOrder, into: &output)
        while output.last?.isEmpty == true { output.removeLast() }
        while output.first?.isEmpty == true { output.removeFirst() }
        let formatted = output.joined(separator: "\n") + "\n"
        let reloaded: YAMLNode
        do {
            reloaded = try loader.load(text: formatted, file: file).node
        } catch {
            throw FormatError(file: file, message: "its layout cannot be made canonical without changing it (the result would not load); it is left as it is")
        }
        guard Self.sameDocument(original, reloaded) else {
            throw FormatError(file: file, message: "its layout cannot be made canonical without changing what it means; it is left as it is")
        }
        return formatted
    }

    // MARK: - Lines and entries

    /// A source line with its indentation measured.
    struct SourceLine {
        let text: String
        let indent: Int
        /// Blank, or a comment alone.
        let isNote: Bool

        init(_ text: String) {
            var trimmed = Substring(text)
            while trimmed.last == " " || trimmed.last == "\t" || trimmed.last == "\r" { trimmed.removeLast() }
            self.text = String(trimmed)
            indent = trimmed.prefix { $0 == " " }.count
            let content = trimmed.drop { $0 == " " }
            isNote = content.isEmpty || content.hasPrefix("#")
        }

        var content: Substring { text.drop { $0 == " " } }
    }

    /// A key (or list item) with the notes above it, its own line, and the lines below it.
    struct Entry {
        var notes: [SourceLine]
        let head: SourceLine
        var body: [SourceLine]

        /// The mapping key the entry starts with; nil for a list item.
        var key: String? {
            let content = head.content
            guard !content.hasPrefix("- "), content != "-", let colon = Self.keyEnd(content) else { return nil }
            let key = content[..<colon]
            return String(key.first == "\"" || key.first == "'" ? key.dropFirst().dropLast() : key)
        }

        /// Where a block mapping key ends (its `:`), for a key written plain or quoted.
        static func keyEnd(_ content: Substring) -> Substring.Index? {
            var index = content.startIndex
            if let quote = content.first, quote == "\"" || quote == "'" {
                guard let close = content[content.index(after: index)...].firstIndex(of: quote) else { return nil }
                index = content.index(after: close)
                return index < content.endIndex && content[index] == ":" ? index : nil
            }
            while index < content.endIndex {
                if content[index] == ":", content.index(after: index) == content.endIndex || content[content.index(after: index)] == " " { return index }
                if "{[#".contains(content[index]) { return nil }
                index = content.index(after: index)
            }
            return nil
        }
    }

    /// Splits lines into sibling entries at the indentation of the first content line: notes
    /// attach to the entry below them, deeper lines to the entry above.
    static func entries(_ lines: [SourceLine]) -> [Entry] {
        guard let level = lines.first(where: { !$0.isNote })?.indent else {
            return lines.isEmpty ? [] : [Entry(notes: lines, head: SourceLine(""), body: [])]
        }
        var entries: [Entry] = []
        var pending: [SourceLine] = []
        var current: Entry?
        var inBlockScalar = false
        for line in lines {
            let startsEntry = !line.isNote && line.indent == level && !(inBlockScalar && line.indent > level)
            if startsEntry && !(current.map { Self.continues($0, with: line) } ?? false) {
                if let finished = current { entries.append(finished) }
                current = Entry(notes: pending, head: line, body: [])
                pending = []
                inBlockScalar = Self.opensBlockScalar(line)
            } else if line.isNote && (current == nil || line.indent <= level) {
                pending.append(line)
            } else if current != nil {
                current!.body += pending + [line]
                pending = []
            } else {
                pending.append(line)
            }
        }
        if var last = current {
            // Notes after the last entry stay where they were: at the end of this block.
            last.body += pending.filter { $0.indent > level }
            entries.append(last)
            let trailing = pending.filter { $0.indent <= level }
            if !trailing.isEmpty { entries.append(Entry(notes: trailing, head: SourceLine(""), body: [])) }
        } else if !pending.isEmpty {
            entries.append(Entry(notes: pending, head: SourceLine(""), body: []))
        }
        return entries
    }

    /// A list under `key:` may be written at the key's own indentation (`key:\n- a`).
    static func continues(_ entry: Entry, with line: SourceLine) -> Bool {
        entry.head.content.hasSuffix(":") && entry.key != nil && (line.content.hasPrefix("- ") || line.content == "-")
            && (entry.body.isEmpty || entry.body.allSatisfy { $0.isNote || $0.indent >= line.indent })
    }

    static func opensBlockScalar(_ line: SourceLine) -> Bool {
        let content = line.content
        return ["|", ">", "|-", ">-", "|+", ">+"].contains { content.hasSuffix(": \($0)") || content.hasSuffix("- \($0)") || content == Substring($0) }
    }

    /// `entries` with known keys first, in `order`, and the rest after them as written.
    static func ordered(_ entries: [Entry], _ order: [String]) -> [Entry] {
        let rank = { (entry: Entry) -> Int in entry.key.flatMap { order.firstIndex(of: $0) } ?? order.count }
        // Notes with no entry of their own (the end of the block) stay last.
        let keyed = entries.filter { !$0.head.text.isEmpty }
        let tail = entries.filter { $0.head.text.isEmpty }
        return keyed.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element) + tail
    }

    // MARK: - Rendering

    static func render(_ entries: [Entry], indent: Int, path: [String], sections: [String: [String]], into output: inout [String]) {
        let pad = String(repeating: " ", count: indent)
        for (index, entry) in entries.enumerated() {
            var notes = entry.notes
            // One blank line at most, none before the first entry of a nested block.
            notes = notes.enumerated().filter { offset, line in
                !(line.content.isEmpty && (offset > 0 && notes[offset - 1].content.isEmpty))
            }.map(\.element)
            if index == 0, indent > 0 { notes = Array(notes.drop { $0.content.isEmpty }) }
            for note in notes { output.append(note.content.isEmpty ? "" : pad + note.content) }
            guard !entry.head.text.isEmpty else { continue }
            output.append(pad + canonicalHead(entry.head.content))
            renderBody(entry, indent: indent, path: path, sections: sections, into: &output)
        }
    }

    static func renderBody(_ entry: Entry, indent: Int, path: [String], sections: [String: [String]], into output: inout [String]) {
        guard let first = entry.body.first(where: { !$0.isNote }) else {
            for line in entry.body { output.append(line.content.isEmpty ? "" : String(repeating: " ", count: indent + 2) + line.content) }
            return
        }
        let head = entry.head.content
        let isListItem = head.hasPrefix("- ")
        if opensBlockScalar(entry.head) || !Self.balanced(head) {
            // Text whose indentation is content (a block scalar, a flow collection over several
            // lines): moved as one piece, never re-indented inside.
            let shift = indent + 2 - first.indent
            for line in entry.body {
                output.append(line.content.isEmpty ? "" : String(repeating: " ", count: max(0, line.indent + shift)) + line.content)
            }
            return
        }
        let childPath = path + [entry.key ?? "-"]
        var children = entries(entry.body)
        if path.isEmpty, let key = entry.key, let order = sections[key] { children = ordered(children, order) }
        // The mapping of a list item continues two spaces in, under its first key.
        render(children, indent: indent + 2, path: isListItem ? path : childPath, sections: sections, into: &output)
    }

    /// Whether brackets and braces outside quotes close on the line.
    static func balanced(_ text: Substring) -> Bool {
        var depth = 0
        var quote: Character?
        for character in text {
            if let open = quote {
                if character == open { quote = nil }
                continue
            }
            switch character {
            case "\"", "'": quote = character
            case "{", "[": depth += 1
            case "}", "]": depth -= 1
            case "#": return depth <= 0
            default: break
            }
        }
        return depth <= 0
    }

    // MARK: - Quoting

    /// A `key: value` line with its value's quotes made canonical: none where the plain value
    /// reads the same, single quotes where quotes are needed and no escape is.
    static func canonicalHead(_ content: Substring) -> String {
        guard let colon = Entry.keyEnd(content) else { return String(content) }
        let key = content[...colon]
        var rest = content[content.index(after: colon)...]
        guard rest.hasPrefix(" ") else { return String(content) }
        rest = rest.drop { $0 == " " }
        if rest.isEmpty || rest.hasPrefix("#") { return String(content) }
        guard let quote = rest.first, quote == "\"" || quote == "'",
              let close = rest.dropFirst().firstIndex(of: quote) else { return "\(key) \(rest)" }
        let inner = rest[rest.index(after: rest.startIndex)..<close]
        let after = rest[rest.index(after: close)...]
        // A trailing comment, however far it stands from the value, leaves the decision the same.
        guard after.isEmpty || after.first == " " && after.drop(while: { $0 == " " }).hasPrefix("#") else { return String(content) }
        if quote == "\"", inner.contains("\\") { return String(content) }
        if quote == "'", inner.contains("'") { return String(content) }
        let value = Self.readsPlain(String(inner)) ? String(inner) : "'\(inner)'"
        return "\(key) \(value)\(after)"
    }

    /// Whether `text` written without quotes reads back as the same string.
    static func readsPlain(_ text: String) -> Bool {
        guard let first = text.first, let last = text.last, first != " ", last != " " else { return false }
        if "-?:,[]{}#&*!|>'\"%@`".contains(first) { return false }
        if text.contains(": ") || text.contains(" #") || text.hasSuffix(":") { return false }
        if YAMLScalar(text: text, isPlain: true).string != text { return false }
        if YAMLScalar.yaml11Booleans.contains(text) { return false }
        return text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F }
    }

    // MARK: - Checking

    /// Whether two documents hold the same values, mapping order aside.
    static func sameDocument(_ a: YAMLNode, _ b: YAMLNode) -> Bool {
        switch (a.content, b.content) {
        case let (.scalar(x), .scalar(y)): return x.value == y.value
        case let (.sequence(xs), .sequence(ys)): return xs.count == ys.count && zip(xs, ys).allSatisfy { sameDocument($0, $1) }
        case let (.mapping(xs), .mapping(ys)):
            guard xs.count == ys.count else { return false }
            return xs.allSatisfy { pair in ys.first { $0.name == pair.name }.map { sameDocument(pair.value, $0.value) } ?? false }
        default: return false
        }
    }
}

/// Why a file was not formatted.
package struct FormatError: Error, Sendable, CustomStringConvertible {
    /// The file, as named.
    package let file: String
    /// What stopped the formatter.
    package let message: String

    /// `file: message`.
    package var description: String { "\(file): \(message)" }
}
