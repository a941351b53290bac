/// An error a command ends with that is no misuse of its options, and needs no usage printed
/// after it: an input file that cannot be read, say.
///
/// `CommandMain` prints it as `error: MESSAGE` on standard error, or, with `--format json`, as
/// `{"error": {"code", "message"}}` on standard output; the exit status is 2.
public protocol CommandFailure: Error {
    /// A stable snake_case code, for JSON output and scripts.
    var code: String { get }
    /// What went wrong, in words a user can act on.
    var message: String { get }
}
