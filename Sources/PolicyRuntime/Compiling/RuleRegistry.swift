@_spi(RuleAuthoring) import PolicyJOSE

/// The rules and settings each policy section accepts: an immutable value built from a list of
/// rule types, never a global mutable map.
@_spi(RuleAuthoring) public struct RuleRegistry: Sendable {
    /// What one section (`token`, ...) accepts.
    public struct Section: Sendable {
        /// The section's key at the top of a policy: `token`, `request`.
        public let name: String
        /// The rule types of the section, in registration order.
        public private(set) var rules: [any Rule.Type]
        /// Keys that configure the section rather than check something (`leeway`, `limits`).
        public let settings: [String: SectionSetting]
        /// Whether evaluating the section needs a subject from the caller (a token, a request, a
        /// callback URL); a `pkce` section reads only inputs.
        public let needsSubject: Bool
        /// Checks of the policy's own section as a whole (what is missing, what does not go
        /// together), run after its rules compile; they report warnings through the compiler.
        public let lints: [SectionLint]

        /// A section of `rules`; the engine's own rules of that section (for `token`, `algorithms`
        /// and `keys`: verification) are added around them, so no registry can leave them out.
        public init(name: String, rules: [any Rule.Type], settings: [String: SectionSetting] = [:], needsSubject: Bool = true,
                    lints: [SectionLint] = []) {
            let (leading, trailing) = Self.engineRules(of: name)
            self.name = name
            self.rules = leading + rules.filter { rule in !(leading + trailing).contains { $0 == rule } } + trailing
            self.settings = settings
            self.needsSubject = needsSubject
            self.lints = lints
        }

        /// The rules the engine itself owns in section `name`, listed before and after the catalog's:
        /// for `token`, `algorithms` first and `keys` (signature verification) last.
        static func engineRules(of name: String) -> (leading: [any Rule.Type], trailing: [any Rule.Type]) {
            name == "token" ? ([AlgorithmsRule.self], [SignatureRule.self]) : ([], [])
        }

        /// Every key the section accepts.
        public var keys: [String] { rules.filter { $0.isConfigurable }.map { $0.key } + settings.keys.sorted() }

        /// The rule written under `key`, if the section has one.
        public func rule(named key: String) -> (any Rule.Type)? {
            rules.first { $0.key == key }
        }

        mutating func add(_ rule: any Rule.Type) {
            rules.append(rule)
        }
    }

    /// A check of a whole section (its YAML mapping), reporting warnings through the compiler.
    public typealias SectionLint = @Sendable (_ section: YAMLNode, _ compiler: inout RuleCompiler) -> Void

    /// A key that configures a section: what it means, and what it accepts.
    public struct SectionSetting: Sendable {
        /// One line on what the setting does, for `explain` and the schema.
        public let summary: String
        /// What the setting accepts.
        public let shape: ArgumentShape

        /// A setting of `shape`.
        public init(_ summary: String, _ shape: ArgumentShape) {
            self.summary = summary
            self.shape = shape
        }
    }

    /// The sections a policy may have, by name.
    public private(set) var sections: [String: Section]

    /// A registry of `sections`; each name once, each key once per section (a programmer
    /// error otherwise).
    public init(sections: [Section]) {
        var table: [String: Section] = [:]
        for section in sections {
            precondition(table[section.name] == nil, "section '\(section.name)' registered twice")
            precondition(Set(section.keys).count == section.keys.count, "section '\(section.name)' names a key twice")
            table[section.name] = section
        }
        self.sections = table
    }

    /// This registry plus a custom rule, whose key must start with `x-` so it can never collide
    /// with a key a later version of the format defines.
    public func registering(_ rule: any Rule.Type, in section: String) throws(RegistrationError) -> RuleRegistry {
        guard rule.key.hasPrefix("x-") else { throw RegistrationError("custom rule keys start with 'x-'; '\(rule.key)' does not") }
        guard var target = sections[section] else { throw RegistrationError("there is no section '\(section)'") }
        guard target.rule(named: rule.key) == nil else { throw RegistrationError("'\(rule.key)' is already registered in '\(section)'") }
        target.add(rule)
        var copy = self
        copy.sections[section] = target
        return copy
    }

    /// Why a custom rule could not be registered.
    public struct RegistrationError: Error, Sendable, CustomStringConvertible {
        /// What was wrong and what to do.
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
