import COpenSSL
import CSodium
import Foundation

/// The standard output of a command found on the PATH; nil when it cannot run or fails.
func commandOutput(_ arguments: [String]) -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return nil }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
}

/// The reference rates each of our figures is divided by, measured in the same run.
enum ReferenceRates {
    /// `openssl speed -mr` for one algorithm: the verify rate (ops/s) of its last result line.
    static func opensslSpeedVerify(_ algorithm: String, seconds: Int = 2) -> Double? {
        guard let output = commandOutput(["openssl", "speed", "-mr", "-seconds", String(seconds), algorithm]) else { return nil }
        let lines = output.split(separator: "\n").filter { $0.hasPrefix("+F") }
        guard let last = lines.last, let verify = last.split(separator: ":").last else { return nil }
        return Double(verify)
    }

    /// A plain libsodium Ed25519 verify loop over `message`: the primitive with nothing around it.
    static func sodiumEd25519Verify(message: [UInt8]) -> Double {
        precondition(sodium_init() >= 0)
        var publicKey = [UInt8](repeating: 0, count: 32), secretKey = [UInt8](repeating: 0, count: 64)
        crypto_sign_keypair(&publicKey, &secretKey)
        var signature = [UInt8](repeating: 0, count: 64)
        crypto_sign_detached(&signature, nil, message, UInt64(message.count), secretKey)
        return measureRate {
            blackHole(crypto_sign_verify_detached(signature, message, UInt64(message.count), publicKey))
        }
    }

    /// OpenSSL HMAC-SHA-256 over `message` with one context prepared once and re-initialised
    /// per call: the fastest way OpenSSL itself offers, with no pool, lock or comparison.
    static func opensslHMACSHA256(message: [UInt8]) -> Double {
        let context = opensslHMACSHA256Context(key: [UInt8](repeating: 0x5A, count: 32))
        var output = [UInt8](repeating: 0, count: 32)
        var length = 0
        let rate = measureRate {
            EVP_MAC_init(context, nil, 0, nil)
            EVP_MAC_update(context, message, message.count)
            EVP_MAC_final(context, &output, &length, output.count)
            blackHole(output[0])
        }
        EVP_MAC_CTX_free(context)
        return rate
    }

    /// An `EVP_MAC` context for HMAC-SHA-256 keyed with `key`; `EVP_MAC_init(context, nil, 0,
    /// nil)` starts a tag under the same key. The caller frees it.
    static func opensslHMACSHA256Context(key: [UInt8]) -> OpaquePointer {
        let mac = EVP_MAC_fetch(nil, "HMAC", nil)!
        defer { EVP_MAC_free(mac) }
        let context = EVP_MAC_CTX_new(mac)!
        let digestName = strdup("SHA256")!, parameterName = strdup("digest")!
        defer { free(digestName); free(parameterName) }
        var parameters = [OSSL_PARAM_construct_utf8_string(parameterName, digestName, 0), OSSL_PARAM_construct_end()]
        precondition(EVP_MAC_init(context, key, key.count, &parameters) == 1)
        return context
    }
}
