import Foundation

/// The inputs of a corpus: a file, or every regular file in a directory, sorted.
public enum CorpusFiles {
    public static func list(_ path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return [] }
        guard isDirectory.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { path + "/" + $0 }.filter { name in
            var directory: ObjCBool = false
            return FileManager.default.fileExists(atPath: name, isDirectory: &directory) && !directory.boolValue
        }
    }
}
