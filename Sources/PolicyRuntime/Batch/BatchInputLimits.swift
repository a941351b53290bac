@_spi(RuleAuthoring) import PolicyJOSE

/// What one batch input may cost: line length and, for gzip, how far it may expand.
///
/// A log is untrusted: a 1 MiB gzip of newlines expands to a gigabyte, and unbounded lines or
/// expansion would cost time and memory without end. The limits a run applied are stated in its
/// summary.
package struct BatchInputLimits: Sendable, Equatable {
    /// The longest line kept; a longer one is cut and reported as `record_malformed`.
    package var maxLineBytes: Int
    /// The most bytes one gzip input may decompress to.
    package var maxDecompressedBytes: Int64
    /// The most a gzip input may expand, decompressed bytes per compressed byte, once past
    /// `ratioGrace` bytes of output (logs of tokens compress 3 to 20 times; a bomb 1000 times).
    package var maxCompressionRatio: Int
    /// Output below which the ratio is not judged: small inputs have large headers and tiny bodies.
    package static let ratioGrace: Int64 = 1 << 20

    /// Limits for a run; the defaults are 1 MiB lines, 64 GiB decompressed and a ratio of 100.
    package init(maxLineBytes: Int = 1 << 20, maxDecompressedBytes: Int64 = 64 << 30, maxCompressionRatio: Int = 100) {
        self.maxLineBytes = maxLineBytes
        self.maxDecompressedBytes = maxDecompressedBytes
        self.maxCompressionRatio = maxCompressionRatio
    }

    /// The defaults.
    package static let standard = BatchInputLimits()

    /// Why `decompressed` bytes from `compressed` ones exceed the limits, or nil.
    func expansionProblem(compressed: Int64, decompressed: Int64) -> String? {
        if decompressed > maxDecompressedBytes {
            return "the gzip input decompresses past \(maxDecompressedBytes) bytes (--max-decompressed-bytes)"
        }
        if decompressed > Self.ratioGrace, decompressed > compressed * Int64(maxCompressionRatio) {
            return "the gzip input expands more than \(maxCompressionRatio) times (\(compressed) bytes to over \(decompressed)): a decompression bomb? (--max-gzip-ratio)"
        }
        return nil
    }

    var json: JSONValue {
        .object(JSONObject([
            "max_line_bytes": .number(.integer(Int64(maxLineBytes))),
            "max_decompressed_bytes": .number(.integer(maxDecompressedBytes)),
            "max_gzip_ratio": .number(.integer(Int64(maxCompressionRatio))),
        ]))
    }
}
