@_spi(RuleAuthoring) import PolicyJOSE

/// "Did you mean" hints for misspelled keys and names.
package enum Suggestion {
    /// The closest candidate within a small edit distance, as a hint sentence.
    package static func didYouMean(_ word: String, among candidates: some Sequence<String>) -> String? {
        let lowered = word.lowercased()
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(lowered, candidate.lowercased())
            if distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        guard let best, best.distance <= max(2, word.count / 3) else { return nil }
        return "did you mean '\(best.name)'?"
    }

    /// Levenshtein distance over Unicode scalars.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
