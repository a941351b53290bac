@_spi(RuleAuthoring) package import PolicyJOSE

/// The key sets one remote source published over time, as `policy-run keys snapshot` stored them,
/// and which keys counted at a given instant.
///
/// A key counts from the first snapshot that holds it to the first later one that no longer
/// does, plus `grace`; a key in the newest snapshot counts from then on. So a log replayed after
/// a rotation is judged with the keys of each record's own time, and a token whose key was
/// published only after the record's time is told apart from one whose key never existed.
package struct KeyHistory: Sendable {
    /// The file in a history directory that lists its snapshots, one JSON object a line:
    /// `{"source": "jwks_uri https://…", "seen": "2026-11-01T00:00:00Z", "jwks": "sha256-….json"}`.
    package static let indexName = "snapshots.jsonl"
    /// The largest index read.
    static let maxIndexBytes = 16 << 20
    /// The most snapshots of one source, distinct key sets and distinct keys one history holds.
    static let maxSnapshots = 10_000
    static let maxDistinctSets = 1_000
    static let maxDistinctKeys = 1_000

    /// The source the snapshots are of, as the policy writes it (`jwks_uri https://…`).
    package let source: String
    /// The directory holding the index and the key sets.
    package let directory: String
    /// How long a key still counts after the first snapshot without it.
    package let grace: Duration
    /// The snapshots of `source`, oldest first.
    package let snapshots: [KeySnapshot]
    /// From each start (ascending), the keys that count until the next start.
    private let periods: [Period]
    /// Every key's publication spans, by `kid`, for refusals that say when a key existed.
    private let spansByKid: [String: [Span]]

    struct Period: Sendable {
        let start: Double
        let keys: JWKSet?
        /// The newest snapshot at or before `start`: the one a verdict names.
        let snapshot: KeySnapshot
    }

    /// From the first snapshot holding a key to the first later one without it (nil: still held).
    struct Span: Sendable {
        let from: KeySnapshot
        let until: KeySnapshot?
    }

    /// Why a history cannot be read; the compiler reports it at the `history` setting.
    package struct LoadError: Error, Sendable {
        /// What is wrong, naming the file (and line) involved.
        package let message: String

        /// A failure described by `message`; readers passed to `init` throw these.
        package init(message: String) {
            self.message = message
        }
    }

    /// The keys that counted at an instant, or why none can be named.
    package enum Selection: Sendable {
        case keys(JWKSet, snapshot: KeySnapshot)
        case beforeHistory(String)
    }

    /// Reads the snapshots of `source` from `directory`, parsing each distinct set once.
    ///
    /// - Parameters:
    ///   - read: returns a file's bytes, or throws why it may not or cannot be read (the
    ///     compiler's file roots and size limits).
    /// - Throws: `LoadError` for an index line that is not a snapshot, a file whose name is not its
    ///   content's SHA-256, a set that is not a public JWKS, or more than the limits allow.
    package init(source: String, directory: String, grace: Duration, options: KeyLoadingOptions,
                read: (_ path: String, _ maxBytes: Int) throws(LoadError) -> [UInt8]?) throws(LoadError) {
        self.source = source
        self.directory = directory
        self.grace = grace
        let indexPath = PolicyPath.joined(directory, Self.indexName)
        var snapshots: [KeySnapshot] = []
        if let index = try read(indexPath, Self.maxIndexBytes) {
            var lineNumber = 0
            for line in index.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
                lineNumber += 1
                if line.isEmpty { continue }
                let entry: JSONObject
                do {
                    entry = try JSONParser(maxDepth: 2).parseObject(line, what: "a snapshot line")
                } catch {
                    throw LoadError(message: "\(indexPath):\(lineNumber): \(error.message)")
                }
                guard let named = entry["source"]?.stringValue, let seenText = entry["seen"]?.stringValue,
                      let file = entry["jwks"]?.stringValue else {
                    throw LoadError(message: "\(indexPath):\(lineNumber): a snapshot line needs the strings 'source', 'seen' and 'jwks'")
                }
                guard named.isExactly(source) else { continue }
                guard let seen = UnixTime.parseRFC3339(seenText) else {
                    throw LoadError(message: "\(indexPath):\(lineNumber): 'seen' must be an RFC 3339 time, found '\(seenText)'")
                }
                guard KeySnapshot.isContentAddress(file) else {
                    throw LoadError(message: "\(indexPath):\(lineNumber): 'jwks' must name a file sha256-<64 hex digits>.json, found '\(file)'")
                }
                guard snapshots.count < Self.maxSnapshots else {
                    throw LoadError(message: "\(indexPath) lists more than \(Self.maxSnapshots) snapshots of \(source)")
                }
                snapshots.append(KeySnapshot(seen: UnixTime(seconds: seen), file: file))
            }
        }
        snapshots.sort { $0.seen.seconds != $1.seen.seconds ? $0.seen.seconds < $1.seen.seconds : $0.file < $1.file }
        self.snapshots = snapshots

        var sets: [String: JWKSet] = [:]
        for snapshot in snapshots where sets[snapshot.file] == nil {
            guard sets.count < Self.maxDistinctSets else {
                throw LoadError(message: "\(indexPath) names more than \(Self.maxDistinctSets) distinct key sets of \(source)")
            }
            sets[snapshot.file] = try Self.keySet(snapshot.file, in: directory, options: options, read: read)
        }
        (periods, spansByKid) = try Self.periods(snapshots, sets: sets, grace: grace)
    }

    /// A stored set, checked against its name and read as a public JWKS.
    private static func keySet(_ file: String, in directory: String, options: KeyLoadingOptions,
                               read: (String, Int) throws(LoadError) -> [UInt8]?) throws(LoadError) -> JWKSet {
        let path = PolicyPath.joined(directory, file)
        guard let bytes = try read(path, 1 << 20) else { throw LoadError(message: "\(path) is listed in \(indexName) but missing") }
        guard KeySnapshot.contentAddress(of: bytes) == file else {
            throw LoadError(message: "\(path) does not hold what its name says: its SHA-256 differs (edited or damaged)")
        }
        let set: JWKSet
        do {
            set = try JWKSet(json: bytes, options: options)
        } catch {
            throw LoadError(message: "\(path): \(error.message)")
        }
        guard !set.keys.contains(where: \.isPrivate) else { throw LoadError(message: "\(path) holds private or secret keys") }
        return set
    }

    /// Each key's spans, and the periods between the instants where the counting keys change.
    private static func periods(_ snapshots: [KeySnapshot], sets: [String: JWKSet], grace: Duration) throws(LoadError) -> ([Period], [String: [Span]]) {
        guard let oldest = snapshots.first else { return ([], [:]) }
        // A key is its kid and its material: the same kid over new material is a new key.
        var keys: [String: JWK] = [:]
        var spans: [String: [Span]] = [:]
        var open: [String: KeySnapshot] = [:]
        var order: [String] = []
        for snapshot in snapshots {
            var present: Set<String> = []
            for key in sets[snapshot.file]!.keys {
                let identity = (key.kid ?? "") + "|" + ((try? key.thumbprint()) ?? "")
                present.insert(identity)
                if keys[identity] == nil {
                    guard keys.count < maxDistinctKeys else {
                        throw LoadError(message: "the snapshots of \(snapshot.file) and before hold more than \(maxDistinctKeys) distinct keys")
                    }
                    keys[identity] = key
                    order.append(identity)
                }
                if open[identity] == nil { open[identity] = snapshot }
            }
            for (identity, from) in open where !present.contains(identity) {
                spans[identity, default: []].append(Span(from: from, until: snapshot))
                open[identity] = nil
            }
        }
        for (identity, from) in open { spans[identity, default: []].append(Span(from: from, until: nil)) }

        let graceSeconds = grace.seconds
        var starts = Set(snapshots.map(\.seen.seconds))
        for span in spans.values.joined() { if let until = span.until { starts.insert(until.seen.seconds + graceSeconds) } }
        var periods: [Period] = []
        var latest = 0
        // Hourly snapshots of an unchanged set make many periods with the same keys: they share one set.
        var previous: (identities: [String], keys: JWKSet?) = ([], nil)
        for start in starts.sorted() where start >= oldest.seen.seconds {
            while latest + 1 < snapshots.count, snapshots[latest + 1].seen.seconds <= start { latest += 1 }
            let counting = order.filter { identity in
                spans[identity]!.contains { $0.from.seen.seconds <= start && ($0.until.map { start < $0.seen.seconds + graceSeconds } ?? true) }
            }
            if counting != previous.identities || periods.isEmpty {
                previous = (counting, counting.isEmpty ? nil : try? JWKSet(keys: counting.map { keys[$0]! }))
            }
            periods.append(Period(start: start, keys: previous.keys, snapshot: snapshots[latest]))
        }
        var byKid: [String: [Span]] = [:]
        for identity in order { if let kid = keys[identity]!.kid { byKid[kid, default: []] += spans[identity]! } }
        return (periods, byKid)
    }

    /// The keys that counted at `time`, with the snapshot that stood then.
    package func keys(at time: Double) -> Selection {
        guard let first = snapshots.first else {
            return .beforeHistory("\(directory) holds no snapshot of \(source); take one with policy-run keys snapshot")
        }
        guard time >= first.seen.seconds else {
            return .beforeHistory("the evaluation time \(UnixTime.iso8601(time)) is before the oldest key snapshot of \(source), \(first)")
        }
        var low = 0, high = periods.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if periods[middle].start <= time { low = middle } else { high = middle - 1 }
        }
        let period = periods[low]
        guard let keys = period.keys else {
            return .beforeHistory("no key of \(source) counted at \(UnixTime.iso8601(time)) (the snapshot of \(period.snapshot) holds none still in force)")
        }
        return .keys(keys, snapshot: period.snapshot)
    }

    /// Why `kid` had no key at `time`: published only later, retired before, or never seen.
    package func absence(of kid: String, at time: Double) -> KeyRefusal {
        let spans = spansByKid[kid] ?? []
        if let later = spans.map(\.from).filter({ $0.seen.seconds > time }).min(by: { $0.seen.seconds < $1.seen.seconds }),
           !spans.contains(where: { $0.from.seen.seconds <= time }) {
            return .publishedLater("the key with kid '\(kid)' was first published in the snapshot of \(later), after the evaluation time \(UnixTime.iso8601(time)) (\(source))")
        }
        if let retired = spans.filter({ $0.from.seen.seconds <= time }).compactMap(\.until).max(by: { $0.seen.seconds < $1.seen.seconds }) {
            let grace = self.grace == .zero ? "" : " and its grace of \(Int(self.grace.seconds)) s"
            return .kidUnknown("the key with kid '\(kid)' was gone from \(source) by the snapshot of \(retired)\(grace), before the evaluation time \(UnixTime.iso8601(time))")
        }
        return .kidUnknown("no key with kid '\(kid)' in any snapshot of \(source) in \(directory)")
    }
}
