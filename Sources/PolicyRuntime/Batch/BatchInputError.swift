/// An input that cannot be read: unreadable, corrupt compression, a truncated gzip file.
public struct BatchInputError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
