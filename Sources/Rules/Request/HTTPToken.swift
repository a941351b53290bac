/// RFC 9110 `token` (§5.6.2): what a header name and a method are written in. The one reading
/// of it for the request rules, the HTTP front and the server's configuration.
package enum HTTPToken {
    /// `tchar`, as a table by byte.
    private static let characters: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for byte in "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8 { table[Int(byte)] = true }
        return table
    }()

    /// Whether `text` is a token: not empty, and `tchar`s only.
    package static func isToken(_ text: some StringProtocol) -> Bool {
        let table = characters  // once, not a lazy global's check per byte
        return !text.isEmpty && text.utf8.allSatisfy { table[Int($0)] }
    }
}
