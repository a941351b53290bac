import Foundation

/// What `Benchmarks instructions` reads from a callgrind output file: the instructions, what the
/// cryptography cost of them, and the calls to the allocator, the cryptography's apart.
///
/// The file format (valgrind's "Callgrind Format Specification"): `ob=`, `fn=`, `cob=` and
/// `cfn=` lines name the current object and function and a call's callee, with `(id) name`
/// compressing repeats; a cost line (`position cost`) adds to the current function's own cost,
/// except the one line after `calls=N ...`, which is that call's inclusive cost.
struct CallgrindProfile {
    /// Every instruction counted.
    private(set) var total = 0
    /// Calls to the C allocator (`allocators`).
    private(set) var allocations = 0
    /// Instructions spent in the cryptography: the inclusive cost of every call from the
    /// engine's own Swift code into a cryptographic library, whatever that library calls in turn
    /// (libc's `malloc` and `memcpy` included). By calls rather than by object, since BoringSSL
    /// is linked into the binary beside the engine; and only calls the engine makes, since a
    /// library's calls inside itself (BoringSSL's unprefixed static functions, Foundation
    /// running one of swift-crypto's closures) are already in the engine's call's cost.
    private(set) var cryptoInstructions = 0
    /// Calls to the C allocator made by the cryptographic libraries' own functions.
    private(set) var cryptoAllocations = 0

    /// The C allocator's entry points: what a record's `malloc`s are counted by.
    static let allocators: Set<Substring> = ["malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc"]

    /// The shared libraries that are cryptography (OpenSSL's and libsodium's).
    static let cryptoObjects = ["libcrypto", "libsodium"]
    /// How the functions of the cryptography linked into the binary begin: BoringSSL's C
    /// (prefixed by swift-crypto), the C interface PolicyCrypto calls it through
    /// (`CBoringSSLVerify`), and swift-crypto's Swift modules.
    static let cryptoFunctionPrefixes = ["CCryptoBoringSSL", "cboring_", "$s6Crypto", "$s12CryptoExtras", "$s13_CryptoExtras", "$s19CryptoBoringWrapper"]

    /// How the engine's own Swift functions begin: its modules' mangled names.
    static let engineFunctionPrefixes = ["$s12PolicyCrypto", "$s10PolicyJOSE", "$s13PolicyRuntime", "$s5Rules", "$s12PolicyEngine", "$s10Benchmarks"]

    /// Whether code of `function` in `object` is the cryptography's.
    static func isCrypto(object: Substring, function: Substring) -> Bool {
        cryptoObjects.contains { object.contains($0) } || cryptoFunctionPrefixes.contains { function.hasPrefix($0) }
    }

    init(file: URL) throws {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { throw BenchmarkError("cannot read callgrind output \(file.path)") }
        var objects: [Substring: Substring] = [:], functions: [Substring: Substring] = [:]
        /// `(id) name` defines id; `(id)` refers to it; a bare name is itself.
        func name(_ value: Substring, in table: inout [Substring: Substring]) -> Substring {
            guard value.first == "(", let close = value.firstIndex(of: ")") else { return value }
            let id = value[value.index(after: value.startIndex)..<close]
            let rest = value[value.index(after: close)...].drop(while: { $0 == " " })
            if !rest.isEmpty { table[id] = rest }
            return table[id] ?? value
        }
        var object: Substring = "?", function: Substring = "?", callee: Substring = "?"
        var calleeObject: Substring? = nil
        var callCostFollows = false, callEntersCrypto = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let first = line.first else { continue }
            if first.isNumber || first == "+" || first == "-" || first == "*" {
                let fields = line.split(separator: " ")
                let cost = fields.count >= 2 ? Int(fields[1]) ?? 0 : 0
                if callCostFollows {
                    callCostFollows = false
                    if callEntersCrypto { cryptoInstructions += cost }
                    continue
                }
                total += cost
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals], value = line[line.index(after: equals)...]
            switch key {
            case "ob": object = name(value, in: &objects)
            case "cob": calleeObject = name(value, in: &objects)
            case "fn": function = name(value, in: &functions)
            case "cfn": callee = name(value, in: &functions)
            case "calls":
                let count = value.split(separator: " ").first.flatMap { Int($0) } ?? 0
                let callerIsCrypto = Self.isCrypto(object: object, function: function)
                if Self.allocators.contains(callee) {
                    allocations += count
                    if callerIsCrypto { cryptoAllocations += count }
                }
                callEntersCrypto = Self.engineFunctionPrefixes.contains { function.hasPrefix($0) }
                    && Self.isCrypto(object: calleeObject ?? object, function: callee)
                calleeObject = nil
                callCostFollows = true
            default: break
            }
        }
    }
}
