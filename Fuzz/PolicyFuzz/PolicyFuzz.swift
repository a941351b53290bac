// The fuzzing entry point. Built with `-sanitize=fuzzer,address -DFUZZING` (Fuzz/run.sh), its
// main hands over to libFuzzer's driver, which runs the target named by POLICY_FUZZ_TARGET
// (SwiftPM links an executable's entry point as `<Target>_main`, so libFuzzer's own `main` is
// not used). Built plainly, it replays inputs: `PolicyFuzz TARGET FILE|DIR...`.
import Foundation
import FuzzTargets

#if FUZZING
let selectedTarget: FuzzTarget = {
    guard let name = ProcessInfo.processInfo.environment["POLICY_FUZZ_TARGET"], let target = FuzzTarget(rawValue: name) else {
        FileHandle.standardError.write(Data("set POLICY_FUZZ_TARGET to one of \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))\n".utf8))
        exit(2)
    }
    return target
}()

typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: FuzzCallback) -> CInt

/// The entry libFuzzer calls for each input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selectedTarget.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

@_cdecl("PolicyFuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    _ = selectedTarget
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzOneInput(data, size) }
}
#else
@main
struct PolicyFuzz {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name), arguments.count > 1 else {
            FileHandle.standardError.write(Data("usage: PolicyFuzz \(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")) FILE|DIR...\n".utf8))
            exit(2)
        }
        var count = 0
        for path in arguments.dropFirst() {
            for file in CorpusFiles.list(path) {
                target.run(Array(FileManager.default.contents(atPath: file) ?? Data()))
                count += 1
            }
        }
        print("\(target.rawValue): \(count) inputs replayed")
    }
}
#endif
