public import Logging

extension Logger {
    /// Key-cache events at `warning` and above (failed fetches) on standard error, through the
    /// `InertLogHandler` that `CommandMain` installs; a fetch that works is not news on a command line.
    public static var keyWarningsOnly: Logger {
        var logger = Logger(label: "policy-engine.keys")
        logger.logLevel = .warning
        return logger
    }
}
