@_spi(RuleAuthoring) import PolicyJOSE

/// An input that cannot be read: unreadable, corrupt compression, a truncated gzip file.
package struct BatchInputError: Error, Sendable, CustomStringConvertible {
    package let description: String

    init(_ description: String) {
        self.description = description
    }
}
