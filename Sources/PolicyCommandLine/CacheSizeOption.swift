import ArgumentParser
import PolicyRuntime
import PolicyJOSE

/// The signature cache's size as an option gives it (`--cache-size 64MiB`), shared by `batch`
/// and `serve` so both accept the same sizes and say the same thing about a bad one.
public enum CacheSizeOption {
    /// The bytes `text` stands for, from 1 MiB to 64 GiB.
    ///
    /// - Throws: a usage error naming `option` and saying how a size is written.
    public static func bytes(_ text: String, option: String) throws -> Int {
        do {
            return try ByteSize.bytes(text, in: SignatureCache.settableSizes)
        } catch {
            throw ValidationError("\(option): \(error)")
        }
    }
}
