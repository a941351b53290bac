internal import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG.
public enum SecureRandom {
    /// `count` random bytes; traps only if the operating system's entropy source is gone.
    public static func bytes(_ count: Int) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return output }
        precondition(RAND_bytes(&output, Int32(count)) == 1, "OpenSSL's random generator failed")
        return output
    }
}
