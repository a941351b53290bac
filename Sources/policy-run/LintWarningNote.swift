import PolicyRuntime
import PolicyJOSE

/// The one line a command that compiles a policy to use it (`check`, `batch`, `diff`, ...)
/// prints about its lint warnings: how many, and the command that shows them. The warnings
/// themselves are `lint`'s to print, so a run over a log does not repeat them every time.
struct LintWarningNote {
    let count: Int
    /// The policy file, or `-` for standard input.
    let file: String

    /// A note for `count` warnings of `file`; nil when there are none.
    init?(count: Int, file: String) {
        guard count > 0 else { return nil }
        self.count = count
        self.file = file
    }

    /// `note: 2 lint warnings in p.yaml; policy-run lint p.yaml shows them`.
    var rendered: String {
        let warnings = "\(count) lint warning\(count == 1 ? "" : "s")"
        guard file != "-" else { return "note: \(warnings) in the policy on standard input; policy-run lint shows them for a file" }
        let file = InertText.escaped(file)
        return "note: \(warnings) in \(file); policy-run lint \(file) shows them"
    }
}
