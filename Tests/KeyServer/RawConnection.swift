import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection to a loopback port that sends exactly the bytes it is given, when it is
/// told to: for the calls URLSession will not make (oversized heads, a slow client).
public final class RawConnection {
    private var socket: Int32

    /// Sends `head` (a request line and header lines) on a new connection to 127.0.0.1:`port`;
    /// the answer's status and body (read by its Content-Length). The blocking socket calls run
    /// on a thread of their own, never on the cooperative pool that the servers of tests running
    /// beside this one answer from.
    public static func exchange(port: Int, _ head: [String]) async throws -> (status: Int, body: String) {
        try await offPool {
            let connection = try RawConnection(port: port)
            connection.send((head + ["Connection: close", "", ""]).joined(separator: "\r\n"))
            guard let answer = connection.readHead() else { throw RawConnectionError.failed("no answer") }
            let status = Int(answer.split(separator: " ").dropFirst().first ?? "") ?? 0
            let length = answer.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) } ?? 0
            return (status, length == 0 ? "" : connection.read(count: length) ?? "")
        }
    }

    /// Runs `body`, whose socket calls block, on a thread of its own: blocked on the cooperative
    /// pool (two threads on two cores), it would starve the servers of the tests running beside.
    public static func offPool<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Connects to 127.0.0.1:`port`; reads wait at most `timeout` seconds.
    public init(port: Int, timeout: Int = 5) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw RawConnectionError.failed("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(socket)
            throw RawConnectionError.failed("connect")
        }
        var wait = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close() }

    /// Closes the connection from this side.
    public func close() {
        if socket >= 0 { Glibc.close(socket) }
        socket = -1
    }

    /// Sends `text`; false when the server has closed the connection.
    @discardableResult
    public func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Everything the server sends until it closes the connection, or nil when the read
    /// timeout passes first.
    public func readUntilClosed() -> String? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count == 0 { return String(decoding: received, as: UTF8.self) }
            if count < 0 { return errno == ECONNRESET ? String(decoding: received, as: UTF8.self) : nil }
            received += buffer[..<count]
        }
    }

    /// The next `count` bytes, or nil when the connection ends or the read timeout passes first.
    public func read(count: Int) -> String? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < count {
            let read = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, min($0.count, count - received.count), 0) }
            guard read > 0 else { return nil }
            received += buffer[..<read]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// The first response's status line and headers, read until the blank line ends them.
    public func readHead() -> String? {
        var received: [UInt8] = []
        var byte: UInt8 = 0
        while !received.ends(with: Array("\r\n\r\n".utf8)) {
            guard recv(socket, &byte, 1, 0) == 1 else { return nil }
            received.append(byte)
        }
        return String(decoding: received, as: UTF8.self)
    }
}

public enum RawConnectionError: Error {
    case failed(String)
}

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
