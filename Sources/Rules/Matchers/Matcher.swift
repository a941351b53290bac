@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) package import PolicyJOSE

/// A compiled claim, header or field matcher (POLICY-FORMAT.md section 3): a scalar means
/// `equals`; a mapping holds operators that must all hold.
package struct Matcher: Sendable {
    enum Operator: Sendable {
        case equals(PolicyValue)
        case notEquals(PolicyValue)
        case oneOf(PolicyValue)
        case notOneOf(PolicyValue)
        case contains(PolicyValue)
        case containsAll(PolicyValue)
        case containsAny(PolicyValue)
        case matches(CompiledPattern)
        case prefix(PolicyValue)
        case suffix(PolicyValue)
        case exists(Bool)
        case type(String)
        case min(Double)
        case max(Double)
        case minLength(Int)
        case maxLength(Int)
    }

    /// Why a matcher did not hold.
    package enum Mismatch: Sendable, Equatable {
        /// The value is absent and the matcher needs one.
        case missing
        /// The value has the wrong JSON type for an operator.
        case type(String)
        /// The value is present and typed right but does not match.
        case value(String)
    }

    /// The JSON Schema of one matcher: a scalar (`equals`), or a mapping of operators.
    package static var schema: JSONValue {
        let list = PolicySchema.anyOf([.object(JSONObject(["type": .string("array")])), PolicySchema.type("string")])
        let count = JSONValue.object(JSONObject(["type": .string("integer"), "minimum": .number(.integer(0))]))
        let operators = JSONObject([
            "equals": PolicySchema.described("the value, exactly", .object(JSONObject())),
            "not_equals": PolicySchema.described("anything but the value", .object(JSONObject())),
            "one_of": PolicySchema.described("one of the values", list),
            "not_one_of": PolicySchema.described("none of the values", list),
            "contains": PolicySchema.described("an array or space-separated string holding the value", .object(JSONObject())),
            "contains_all": PolicySchema.described("holding every value", list),
            "contains_any": PolicySchema.described("holding at least one value", list),
            "matches": PolicySchema.described("the whole string matches the RE2 pattern", PolicySchema.type("string")),
            "prefix": PolicySchema.described("the string starts with the value", PolicySchema.type("string")),
            "suffix": PolicySchema.described("the string ends with the value", PolicySchema.type("string")),
            "exists": PolicySchema.described("present (true) or absent (false)", PolicySchema.type("boolean")),
            "type": PolicySchema.described("the JSON type", .object(JSONObject(["enum": .array(typeNames.map { .string($0) })]))),
            "min": PolicySchema.described("a number at least this", PolicySchema.type("number")),
            "max": PolicySchema.described("a number at most this", PolicySchema.type("number")),
            "min_length": PolicySchema.described("a string or array at least this long", count),
            "max_length": PolicySchema.described("a string or array at most this long", count),
        ])
        assert(Set(operators.names) == Set(operatorNames), "the matcher schema lists other operators than the compiler")
        return PolicySchema.anyOf([
            .object(JSONObject(["type": .array(["string", "number", "boolean", "null"].map { .string($0) })])),
            .object(JSONObject(["type": .string("object"), "minProperties": .number(.integer(1)), "additionalProperties": .bool(false),
                                "properties": .object(operators)])),
        ])
    }

    static let operatorNames = ["equals", "not_equals", "one_of", "not_one_of", "contains", "contains_all", "contains_any",
                                "matches", "prefix", "suffix", "exists", "type", "min", "max", "min_length", "max_length"]
    static let typeNames = ["string", "number", "integer", "boolean", "array", "object", "null"]

    let operators: [Operator]

    /// The kinds of mismatch this matcher can report: `missing` unless it is `exists: false`,
    /// `type` when an operator needs a type, `value` when an operator compares values.
    package var possibleMismatches: (missing: Bool, type: Bool, value: Bool) {
        var result = (missing: true, type: false, value: false)
        for op in operators {
            switch op {
            case let .exists(shouldExist):
                if !shouldExist { result.missing = false; result.value = true }
            case .type: result.type = true
            case .equals, .notEquals, .oneOf, .notOneOf: result.value = true
            case .contains, .containsAll, .containsAny, .matches, .prefix, .suffix, .min, .max, .minLength, .maxLength:
                result.type = true
                result.value = true
            }
        }
        return result
    }

    /// Why no value can satisfy the matcher, when its literal operators contradict each other
    /// (checked at compile time; input-dependent operands are not judged).
    var contradiction: String? {
        func literal(_ value: PolicyValue) -> JSONValue? {
            if case let .literal(json) = value { return json }
            return nil
        }
        var equals: [JSONValue] = [], notEquals: [JSONValue] = [], oneOf: [[JSONValue]] = []
        var minimum: Double?, maximum: Double?, minLength: Int?, maxLength: Int?, types: [String] = []
        var mustBeAbsent = false, needsString = false
        for op in operators {
            switch op {
            case let .equals(value): if let json = literal(value) { equals.append(json) }
            case let .notEquals(value): if let json = literal(value) { notEquals.append(json) }
            case let .oneOf(value): if let json = literal(value) { oneOf.append(json.arrayValue ?? [json]) }
            case let .min(bound): minimum = bound
            case let .max(bound): maximum = bound
            case let .minLength(bound): minLength = bound
            case let .maxLength(bound): maxLength = bound
            case let .type(name): types.append(name)
            case let .exists(shouldExist): mustBeAbsent = !shouldExist
            case .matches, .prefix, .suffix: needsString = true
            default: break
            }
        }
        let same = { (a: JSONValue, b: JSONValue) in a == b && a.typeName == b.typeName }
        if mustBeAbsent, operators.count > 1 { return "'exists: false' requires the value to be absent, so the other operators never pass" }
        if equals.count > 1, !equals.dropFirst().allSatisfy({ same($0, equals[0]) }) { return "two different 'equals' values" }
        if let value = equals.first {
            if notEquals.contains(where: { same($0, value) }) { return "'equals' and 'not_equals' name the same value" }
            if let options = oneOf.first(where: { !$0.contains { same($0, value) } }) {
                return "'equals' \(Matcher.show(value)) is not one of \(Matcher.show(.array(options)))"
            }
        }
        if let minimum, let maximum, minimum > maximum { return "'min' \(Matcher.format(minimum)) is above 'max' \(Matcher.format(maximum))" }
        if let minLength, let maxLength, minLength > maxLength { return "'min_length' \(minLength) is above 'max_length' \(maxLength)" }
        if Set(types).count > 1, !(Set(types) == ["number", "integer"]) { return "two different 'type's: \(types.joined(separator: " and "))" }
        if let type = types.first, needsString, type != "string" { return "'type: \(type)' with an operator that needs a string" }
        if let type = types.first, minimum != nil || maximum != nil, type != "number", type != "integer" { return "'type: \(type)' with 'min' or 'max', which need a number" }
        return nil
    }

    /// Checks `value` (nil when absent); nil means the matcher holds.
    package func check(_ value: JSONValue?, inputs: [String: JSONValue]) -> Mismatch? {
        if case let .exists(shouldExist)? = operators.first(where: { if case .exists = $0 { true } else { false } }) {
            if !shouldExist { return value == nil ? nil : .value("must be absent, found \(Matcher.show(value!))") }
            if value == nil { return .missing }
        }
        guard let value else { return .missing }
        for op in operators {
            if let mismatch = check(op, value, inputs) { return mismatch }
        }
        return nil
    }

    private func check(_ op: Operator, _ value: JSONValue, _ inputs: [String: JSONValue]) -> Mismatch? {
        func resolved(_ operand: PolicyValue) -> JSONValue { operand.resolve(inputs) ?? .null }
        func list(_ operand: PolicyValue) -> [JSONValue] {
            let items = resolved(operand)
            return items.arrayValue ?? [items]
        }
        switch op {
        case let .equals(operand):
            let expected = resolved(operand)
            return value == expected && value.typeName == expected.typeName ? nil : .value("expected \(Matcher.show(expected)), found \(Matcher.show(value))")
        case let .notEquals(operand):
            let unwanted = resolved(operand)
            return value == unwanted && value.typeName == unwanted.typeName ? .value("must not equal \(Matcher.show(unwanted))") : nil
        case let .oneOf(operand):
            let options = list(operand)
            return options.contains { $0 == value && $0.typeName == value.typeName } ? nil
                : .value("expected one of \(Matcher.show(.array(options))), found \(Matcher.show(value))")
        case let .notOneOf(operand):
            let options = list(operand)
            return options.contains { $0 == value && $0.typeName == value.typeName } ? .value("must not be one of \(Matcher.show(.array(options))), found \(Matcher.show(value))") : nil
        case let .contains(operand):
            return containment([resolved(operand)], in: value, requireAll: true)
        case let .containsAll(operand):
            return containment(list(operand), in: value, requireAll: true)
        case let .containsAny(operand):
            return containment(list(operand), in: value, requireAll: false)
        case let .matches(pattern):
            guard case let .string(text) = value else { return .type("must be a string to match a pattern, found \(value.typeName)") }
            return pattern.wholeMatches(text) ? nil : .value("\(Matcher.show(value)) does not match /\(pattern.source)/")
        case let .prefix(operand), let .suffix(operand):
            guard case let .string(text) = value else { return .type("must be a string, found \(value.typeName)") }
            let affix = resolved(operand).stringValue ?? ""
            let isPrefix: Bool = if case .prefix = op { true } else { false }
            let holds = isPrefix ? text.hasExactPrefix(affix) : text.hasExactSuffix(affix)
            return holds ? nil : .value("\(Matcher.show(value)) does not \(isPrefix ? "start" : "end") with \"\(affix)\"")
        case .exists:
            return nil
        case let .type(name):
            return Matcher.hasType(value, name) ? nil : .type("expected \(name == "integer" ? "an integer" : "a \(name)"), found \(Matcher.typeName(value))")
        case let .min(bound), let .max(bound):
            guard case let .number(number) = value else { return .type("must be a number, found \(value.typeName)") }
            let isMin: Bool = if case .min = op { true } else { false }
            let holds = isMin ? number.doubleValue >= bound : number.doubleValue <= bound
            return holds ? nil : .value("\(number) is \(isMin ? "below the minimum" : "above the maximum") \(Matcher.format(bound))")
        case let .minLength(bound), let .maxLength(bound):
            let length: Int
            switch value {
            case let .string(text): length = text.unicodeScalars.count
            case let .array(items): length = items.count
            default: return .type("must be a string or an array to have a length, found \(value.typeName)")
            }
            let isMin: Bool = if case .minLength = op { true } else { false }
            let holds = isMin ? length >= bound : length <= bound
            return holds ? nil : .value("length \(length) is \(isMin ? "below the minimum" : "above the maximum") \(bound)")
        }
    }

    private func containment(_ wanted: [JSONValue], in value: JSONValue, requireAll: Bool) -> Mismatch? {
        let present: (JSONValue) -> Bool
        switch value {
        case let .array(items):
            present = { want in items.contains { $0 == want && $0.typeName == want.typeName } }
        case let .string(text):
            let words = text.utf8.split(separator: UInt8(ascii: " ")).map(Array.init)
            present = { want in want.stringValue.map { words.contains(Array($0.utf8)) } ?? false }
        default:
            return .type("must be an array or a space-separated string, found \(value.typeName)")
        }
        let missing = wanted.filter { !present($0) }
        if requireAll, !missing.isEmpty {
            return .value("\(Matcher.show(value)) does not contain \(missing.map(Matcher.show).joined(separator: ", "))")
        }
        if !requireAll, missing.count == wanted.count {
            return .value("\(Matcher.show(value)) contains none of \(wanted.map(Matcher.show).joined(separator: ", "))")
        }
        return nil
    }

    static func hasType(_ value: JSONValue, _ name: String) -> Bool {
        switch (name, value) {
        case ("string", .string), ("boolean", .bool), ("array", .array), ("object", .object), ("null", .null), ("number", .number): true
        case let ("integer", .number(number)):
            if case .bigInteger = number { true } else { number.int64Value != nil }
        default: false
        }
    }

    static func typeName(_ value: JSONValue) -> String {
        if case let .number(number) = value, hasType(value, "integer") { return "an integer \(number)" }
        return "a \(value.typeName)"
    }

    /// A value as it appears in messages: JSON, shortened when long.
    static func show(_ value: JSONValue) -> String {
        let text = String(decoding: value.serializedBytes(), as: UTF8.self)
        return text.count > 120 ? String(text.prefix(117)) + "..." : text
    }

    static func format(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }

    /// The inputs the matcher reads.
    var inputNames: [String] {
        operators.flatMap { op -> [String] in
            switch op {
            case let .equals(v), let .notEquals(v), let .oneOf(v), let .notOneOf(v), let .contains(v), let .containsAll(v),
                 let .containsAny(v), let .prefix(v), let .suffix(v): v.inputNames
            default: []
            }
        }
    }

    /// The matcher in words, for `explain`.
    package var explanation: String {
        operators.map { op -> String in
            switch op {
            case let .equals(v): "equals \(v.display)"
            case let .notEquals(v): "does not equal \(v.display)"
            case let .oneOf(v): "is one of \(v.display)"
            case let .notOneOf(v): "is none of \(v.display)"
            case let .contains(v): "contains \(v.display)"
            case let .containsAll(v): "contains all of \(v.display)"
            case let .containsAny(v): "contains any of \(v.display)"
            case let .matches(p): "matches /\(p.source)/"
            case let .prefix(v): "starts with \(v.display)"
            case let .suffix(v): "ends with \(v.display)"
            case let .exists(flag): flag ? "is present" : "is absent"
            case let .type(name): "is of type \(name)"
            case let .min(bound): "is at least \(Matcher.format(bound))"
            case let .max(bound): "is at most \(Matcher.format(bound))"
            case let .minLength(bound): "has length at least \(bound)"
            case let .maxLength(bound): "has length at most \(bound)"
            }
        }.joined(separator: " and ")
    }
}
