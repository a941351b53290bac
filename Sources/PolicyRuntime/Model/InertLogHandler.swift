package import Logging
@_spi(RuleAuthoring) import PolicyJOSE

/// A log handler that makes every record inert (`InertText`) before another handler writes it.
///
/// Log records quote text the engine does not control: a discovery document's `issuer`, a JWK's
/// `kid`, a policy file's source line in a reload failure. Written raw, a carriage return and a
/// newline in that text start a forged log line and an escape sequence repaints a terminal. This
/// handler escapes the message and every metadata key and value, nested dictionaries and arrays
/// included, and the attached error, before passing the record on; the wrapped handler only ever
/// sees inert text. The command-line tools install it for every logger (`CommandMain`).
package struct InertLogHandler: LogHandler {
    private var wrapped: any LogHandler

    /// Metadata set on the logger, escaped with each record (the wrapped handler holds none).
    package var metadata: Logger.Metadata = [:]

    /// Contextual metadata, escaped with each record (the wrapped handler gets none of its own).
    package var metadataProvider: Logger.MetadataProvider?

    package var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    /// Wraps `handler`, taking over its metadata and metadata provider so that they are escaped too.
    package init(wrapping handler: any LogHandler) {
        var handler = handler
        metadata = handler.metadata
        metadataProvider = handler.metadataProvider
        if !handler.metadata.isEmpty { handler.metadata = [:] }
        if handler.metadataProvider != nil { handler.metadataProvider = nil }
        wrapped = handler
    }

    /// Swift Log's standard-error stream handler, made inert: what the command-line tools log with.
    package static func standardError(label: String, metadataProvider: Logger.MetadataProvider? = nil) -> InertLogHandler {
        var handler = InertLogHandler(wrapping: StreamLogHandler.standardError(label: label, metadataProvider: nil))
        handler.metadataProvider = metadataProvider
        return handler
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var event = event
        var merged = metadataProvider?.get() ?? [:]
        merged.merge(metadata) { $1 }
        merged.merge(event.metadata ?? [:]) { $1 }
        // The wrapped handler would print the error's description as it is: it becomes metadata here.
        if let error = event.error {
            merged["error.message"] = "\(error)"
            merged["error.type"] = "\(String(reflecting: type(of: error)))"
            event.error = nil
        }
        event.message = Logger.Message(stringLiteral: InertText.escaped(event.message.description))
        event.metadata = merged.isEmpty ? nil : Self.escaped(merged)
        wrapped.log(event: event)
    }

    /// `metadata` with every key and value escaped, through nested dictionaries and arrays.
    package static func escaped(_ metadata: Logger.Metadata) -> Logger.Metadata {
        var result: Logger.Metadata = [:]
        for (key, value) in metadata {
            result[InertText.escaped(key)] = escaped(value)
        }
        return result
    }

    /// `value` escaped; a `stringConvertible` value becomes the escaped string of its description.
    package static func escaped(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case let .string(text): .string(InertText.escaped(text))
        case let .stringConvertible(convertible): .string(InertText.escaped(convertible.description))
        case let .dictionary(nested): .dictionary(escaped(nested))
        case let .array(values): .array(values.map(escaped))
        }
    }
}
