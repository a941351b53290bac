import Foundation

/// What `Benchmarks instructions` reads from a callgrind output file: instructions by object
/// (the binary, libcrypto, libsodium, libc, ...) and calls to the allocator by the caller's object.
///
/// The file format (valgrind's "Callgrind Format Specification"): `ob=`, `fn=` and `cfn=`
/// lines name the current object, function and callee, with `(id) name` compressing repeats;
/// a cost line (`position cost`) adds to the current function's own cost, except the one line
/// after `calls=N ...`, which is that call's inclusive cost.
struct CallgrindProfile {
    /// Instructions executed in each object's own code, by the object's path.
    private(set) var instructionsByObject: [String: Int] = [:]
    /// Calls to the C allocator (`allocators`), by the object of the function that made them.
    private(set) var allocationsByCaller: [String: Int] = [:]

    /// The C allocator's entry points: what a record's `malloc`s are counted by.
    static let allocators: Set<Substring> = ["malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc"]

    /// Every instruction counted.
    var total: Int { instructionsByObject.values.reduce(0, +) }

    /// Instructions in objects whose file name contains one of `names` (e.g. `libcrypto`).
    func instructions(inObjectsNamed names: [String]) -> Int {
        Self.sum(instructionsByObject, inObjectsNamed: names)
    }

    /// Calls to the C allocator.
    var allocations: Int { allocationsByCaller.values.reduce(0, +) }

    /// Calls to the C allocator made from objects whose file name contains one of `names`.
    func allocations(byObjectsNamed names: [String]) -> Int {
        Self.sum(allocationsByCaller, inObjectsNamed: names)
    }

    private static func sum(_ counts: [String: Int], inObjectsNamed names: [String]) -> Int {
        counts.filter { object, _ in names.contains { object.contains($0) } }.values.reduce(0, +)
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
        var object: Substring = "?", callee: Substring = "?"
        var callCostFollows = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let first = line.first else { continue }
            if first.isNumber || first == "+" || first == "-" || first == "*" {
                if callCostFollows {
                    callCostFollows = false
                    continue
                }
                let fields = line.split(separator: " ")
                if fields.count >= 2, let cost = Int(fields[1]) { instructionsByObject[String(object), default: 0] += cost }
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals], value = line[line.index(after: equals)...]
            switch key {
            case "ob": object = name(value, in: &objects)
            case "cob": _ = name(value, in: &objects)
            case "fn": _ = name(value, in: &functions)
            case "cfn": callee = name(value, in: &functions)
            case "calls":
                if Self.allocators.contains(callee) {
                    allocationsByCaller[String(object), default: 0] += value.split(separator: " ").first.flatMap { Int($0) } ?? 0
                }
                callCostFollows = true
            default: break
            }
        }
    }
}
