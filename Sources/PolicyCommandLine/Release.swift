/// This release of the command-line tools.
public enum Release {
    /// The version `policy-run --version` and `policy-serve --version` print.
    public static let version = "0.15.0"
}
