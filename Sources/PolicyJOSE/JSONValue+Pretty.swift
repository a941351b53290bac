/// Indented JSON text for people: `policy-run decode` and verdict listings.
extension JSONValue {
    /// The value as indented JSON; `annotate` may add a trailing comment to an object member
    /// (for example the calendar date of a numeric `exp`). The result is JSON only when no
    /// annotation is returned.
    public func prettyPrinted(indent: String = "  ", annotate: (_ name: String, _ value: JSONValue) -> String? = { _, _ in nil }) -> String {
        var output = ""
        write(to: &output, level: 0, indent: indent, annotate: annotate)
        return output
    }

    private func write(to output: inout String, level: Int, indent: String, annotate: (String, JSONValue) -> String?) {
        let inner = String(repeating: indent, count: level + 1)
        let outer = String(repeating: indent, count: level)
        switch self {
        case let .array(elements) where !elements.isEmpty:
            output += "[\n"
            for (index, element) in elements.enumerated() {
                output += inner
                element.write(to: &output, level: level + 1, indent: indent, annotate: annotate)
                output += index < elements.count - 1 ? ",\n" : "\n"
            }
            output += outer + "]"
        case let .object(object) where object.count > 0:
            output += "{\n"
            for (index, member) in object.members.enumerated() {
                output += inner + JSONValue.string(member.name).serialized() + ": "
                member.value.write(to: &output, level: level + 1, indent: indent, annotate: annotate)
                if index < object.count - 1 { output += "," }
                if let note = annotate(member.name, member.value) { output += "  // " + note }
                output += "\n"
            }
            output += outer + "}"
        default:
            output += serialized()
        }
    }
}
