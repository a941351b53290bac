internal import Foundation
@_spi(RuleAuthoring) public import PolicyJOSE

/// A value written in a policy, which may refer to inputs supplied at evaluation time.
///
/// `${name}` alone keeps the input's own type; inside a longer string it is interpolated as text.
/// Values are resolved per evaluation; everything else about them is settled at compile time.
@_spi(RuleAuthoring) public enum PolicyValue: Sendable, Equatable {
    case literal(JSONValue)
    case input(String)
    case interpolated([Part])

    /// A piece of an interpolated string: literal text, or an input's value as text.
    public enum Part: Sendable, Equatable {
        case text(String)
        case input(String)
    }

    /// The inputs this value reads.
    public var inputNames: [String] {
        switch self {
        case .literal: []
        case let .input(name): [name]
        case let .interpolated(parts): parts.compactMap { if case let .input(name) = $0 { name } else { nil } }
        }
    }

    /// The value with inputs filled in; nil when an input it needs is absent.
    public func resolve(_ inputs: [String: JSONValue]) -> JSONValue? {
        switch self {
        case let .literal(value):
            return value
        case let .input(name):
            return inputs[name]
        case let .interpolated(parts):
            var text = ""
            for part in parts {
                switch part {
                case let .text(piece): text += piece
                case let .input(name):
                    guard let value = inputs[name] else { return nil }
                    text += value.stringValue ?? String(decoding: value.serializedBytes(), as: UTF8.self)
                }
            }
            return .string(text)
        }
    }

    /// How the value reads in `explain` output: literals as JSON, inputs as `${name}`.
    public var display: String {
        switch self {
        case let .literal(value): value.stringValue ?? String(decoding: value.serializedBytes(), as: UTF8.self)
        case let .input(name): "${\(name)}"
        case let .interpolated(parts):
            parts.map { part in
                switch part {
                case let .text(text): text
                case let .input(name): "${\(name)}"
                }
            }.joined()
        }
    }
}

/// Splits `${...}` references out of a string.
enum InputTemplate {
    enum Reference: Equatable {
        case input(String)
        case environment(String)
    }

    enum Piece: Equatable {
        case text(String)
        case reference(Reference)
    }

    /// The pieces of `text`, or an error message for an unterminated or empty reference.
    static func parse(_ text: String) -> Result<[Piece], TemplateError> {
        guard text.contains("${") else { return .success([.text(text)]) }
        var pieces: [Piece] = []
        var rest = Substring(text)
        while let start = rest.range(of: "${") {
            if start.lowerBound > rest.startIndex { pieces.append(.text(String(rest[..<start.lowerBound]))) }
            guard let end = rest[start.upperBound...].firstIndex(of: "}") else {
                return .failure(TemplateError(message: "'${' without a closing '}'"))
            }
            let name = String(rest[start.upperBound..<end])
            if name.hasPrefix("env:") {
                let variable = String(name.dropFirst(4))
                guard isName(variable) else { return .failure(TemplateError(message: "'${\(name)}' does not name an environment variable")) }
                pieces.append(.reference(.environment(variable)))
            } else {
                guard isName(name) else { return .failure(TemplateError(message: "'${\(name)}' is not a valid input reference; names use letters, digits and '_'")) }
                pieces.append(.reference(.input(name)))
            }
            rest = rest[rest.index(after: end)...]
        }
        if !rest.isEmpty { pieces.append(.text(String(rest))) }
        return .success(pieces)
    }

    static func isName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first == "_" || first.properties.isAlphabetic, first.isASCII else { return false }
        return text.unicodeScalars.allSatisfy { $0.isASCII && ($0 == "_" || $0 == "-" || $0.properties.isAlphabetic || ("0"..."9").contains($0)) }
    }

    struct TemplateError: Error {
        let message: String
    }
}
