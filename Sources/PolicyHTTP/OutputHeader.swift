internal import Foundation
internal import HTTPTypes
internal import PolicyRuntime
internal import PolicyJOSE

/// How a valid verdict's outputs travel back to a proxy: one header each.
enum OutputHeader {
    /// `user` → `X-Auth-User`, `tenant_id` → `X-Auth-Tenant-Id`.
    static func name(for output: String) -> String {
        "X-Auth-" + output.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: "-")
    }

    /// The field for `value` under `name`; nil when `name` is not a header name.
    static func field(_ name: String, _ value: JSONValue) -> (HTTPField.Name, String)? {
        HTTPField.Name(name).map { ($0, Self.value(value)) }
    }

    /// A string as it is when it is printable ASCII; anything else as its JSON text, which
    /// escapes every control character, so an output can never split a header.
    static func value(_ value: JSONValue) -> String {
        if case let .string(text) = value, text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) { return text }
        return String(decoding: value.serializedBytes(), as: UTF8.self).unicodeScalars.map { $0.value < 0x80 ? String($0) : String(format: "\\u%04x", $0.value) }.joined()
    }
}
