internal import CZlib

/// Streaming gzip (or zlib) decompression of a byte stream, chunk by chunk, so a compressed log
/// of any size is read in bounded memory. Concatenated gzip members (as `cat a.gz b.gz` makes)
/// are read one after another.
public final class GzipInflater {
    private var stream = z_stream()
    private var finished = false

    /// A decompressor at the start of a stream.
    public init() throws(CompressionError) {
        guard CZlib_inflateInit(&stream) == Z_OK else { throw CompressionError("could not start gzip decompression") }
    }

    deinit { inflateEnd(&stream) }

    /// The bytes `input` decompresses to; throws on corrupt data.
    public func inflate(_ input: [UInt8]) throws(CompressionError) -> [UInt8] {
        guard !input.isEmpty else { return [] }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var remaining = input[...]
        while !remaining.isEmpty {
            if finished {
                // Another member follows the last one's end.
                guard inflateReset(&stream) == Z_OK else { throw CompressionError("could not read the next gzip member") }
                finished = false
            }
            let (consumed, failure) = remaining.withUnsafeBytes { inputBytes -> (Int, Int32?) in
                stream.next_in = UnsafeMutablePointer(mutating: inputBytes.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(inputBytes.count)
                repeat {
                    let status: Int32 = chunk.withUnsafeMutableBytes { outputBytes in
                        stream.next_out = outputBytes.bindMemory(to: Bytef.self).baseAddress
                        stream.avail_out = uInt(outputBytes.count)
                        return CZlib.inflate(&stream, Z_NO_FLUSH)
                    }
                    let produced = chunk.count - Int(stream.avail_out)
                    output.append(contentsOf: chunk[..<produced])
                    switch status {
                    case Z_STREAM_END:
                        finished = true
                        return (inputBytes.count - Int(stream.avail_in), nil)
                    case Z_BUF_ERROR where produced == 0:
                        // No progress is possible with what is left: wait for more input.
                        return (inputBytes.count - Int(stream.avail_in), nil)
                    case Z_OK, Z_BUF_ERROR:
                        break
                    default:
                        return (0, status)
                    }
                } while stream.avail_out == 0 || stream.avail_in > 0
                return (inputBytes.count - Int(stream.avail_in), nil)
            }
            if let failure { throw CompressionError("the gzip data is corrupt (zlib status \(failure))") }
            remaining = remaining.dropFirst(consumed)
            if !finished, consumed == 0 { break }
        }
        return output
    }

    /// Whether the stream ended cleanly; a truncated file leaves it unfinished.
    public var isComplete: Bool { finished }
}

/// Compressed data that cannot be read: corrupt, or zlib could not start or resume.
public struct CompressionError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
