import Foundation
import FuzzTargets
import Testing

/// Every committed fuzzing input (Fuzz/corpus/<target>/: seeds, the campaign's corpus and the
/// regression inputs of crashes found and fixed) replayed through its target without mutation:
/// an input that once crashed, hung or broke an invariant fails the suite again if it regresses.
@Suite("Fuzz corpus replay")
struct CorpusReplayTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/corpus")

    @Test("each target replays its corpus", arguments: FuzzTarget.allCases)
    func replay(_ target: FuzzTarget) throws {
        let files = CorpusFiles.list(Self.corpus.appendingPathComponent(target.rawValue).path)
        #expect(files.count >= 3, "Fuzz/corpus/\(target.rawValue) holds \(files.count) inputs")
        for file in files {
            target.run(Array(try Data(contentsOf: URL(fileURLWithPath: file))))
        }
        print("\(target.rawValue): \(files.count) corpus inputs replayed")
    }
}
