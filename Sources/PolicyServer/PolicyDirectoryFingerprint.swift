internal import Foundation

/// What a policy directory holds, as a reload must see it: every entry below it, symbolic links
/// followed, each regular file by identity (device, inode), size, modification time and content
/// digest, each link by the text it points with.
///
/// Kubernetes updates a mounted ConfigMap by writing a new hidden directory and swapping the
/// `..data` link to it (`ln -sfn … ..data.tmp && mv -T ..data.tmp ..data`): no file's name,
/// size or time need change, only where a link leads. Taken with links both read and followed,
/// not by listing regular files, the fingerprint changes with the swap, with a link to the directory
/// itself moved elsewhere, and with a file rewritten in place within its modification time's
/// resolution. Bounded: at most 10,000 entries, 8 levels of directories, and 4 MiB of content
/// hashed per look; past these, files count by identity, size and time only.
struct PolicyDirectoryFingerprint: Equatable, Sendable {
    private var entries: [String] = []

    static let maxEntries = 10_000
    static let maxDepth = 8
    static let maxHashedBytes = 4 << 20

    /// The fingerprint of `directory` now; an unreadable directory has an empty one.
    init(_ directory: String) {
        var budget = Self.maxHashedBytes
        entries.append("@" + URL(fileURLWithPath: directory).resolvingSymlinksInPath().path)
        walk(directory, relative: "", depth: 0, budget: &budget)
        entries.sort()
    }

    private mutating func walk(_ path: String, relative: String, depth: Int, budget: inout Int) {
        let files = FileManager.default
        guard depth < Self.maxDepth, let names = try? files.contentsOfDirectory(atPath: path) else { return }
        for name in names where entries.count < Self.maxEntries {
            let full = path + "/" + name
            let label = relative.isEmpty ? name : relative + "/" + name
            guard let own = try? files.attributesOfItem(atPath: full) else { continue }
            var line = label
            var target = own
            if own[.type] as? FileAttributeType == .typeSymbolicLink {
                line += " -> " + ((try? files.destinationOfSymbolicLink(atPath: full)) ?? "?")
                guard let followed = try? files.attributesOfItem(atPath: URL(fileURLWithPath: full).resolvingSymlinksInPath().path),
                      followed[.type] as? FileAttributeType != .typeSymbolicLink else {
                    entries.append(line + " (dangling)")
                    continue
                }
                target = followed
            }
            switch target[.type] as? FileAttributeType {
            case .typeDirectory?:
                entries.append(line + "/")
                walk(full, relative: label, depth: depth + 1, budget: &budget)
            case .typeRegular?:
                let size = (target[.size] as? NSNumber)?.intValue ?? -1
                var digest = "-"
                if size <= budget {
                    budget -= max(size, 0)
                    digest = files.contents(atPath: full).map { Self.digest(of: $0) }.map(String.init) ?? "unreadable"
                }
                let identity = "\(target[.deviceIdentifier] ?? "?"):\(target[.systemFileNumber] ?? "?")"
                let modified = (target[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
                entries.append(line + " \(identity) \(size) \(modified) \(digest)")
            default:
                entries.append(line + " (other)")
            }
        }
    }

    /// A digest of a file's bytes, stable within this process, which is all a comparison of two
    /// looks needs.
    private static func digest(of contents: Data) -> Int {
        var hasher = Hasher()
        contents.withUnsafeBytes { hasher.combine(bytes: $0) }
        return hasher.finalize()
    }
}
