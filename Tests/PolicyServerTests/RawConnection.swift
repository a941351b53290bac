import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection to a loopback port that sends exactly the bytes it is given, when it is
/// told to: for the calls URLSession will not make (oversized heads, a slow client).
final class RawConnection {
    private var socket: Int32

    /// Connects to 127.0.0.1:`port`; reads wait at most `timeout` seconds.
    init(port: Int, timeout: Int = 5) throws {
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
    func close() {
        if socket >= 0 { Glibc.close(socket) }
        socket = -1
    }

    /// Sends `text`; false when the server has closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Everything the server sends until it closes the connection, or nil when the read
    /// timeout passes first.
    func readUntilClosed() -> String? {
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
    func read(count: Int) -> String? {
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
    func readHead() -> String? {
        var received: [UInt8] = []
        var byte: UInt8 = 0
        while !received.ends(with: Array("\r\n\r\n".utf8)) {
            guard recv(socket, &byte, 1, 0) == 1 else { return nil }
            received.append(byte)
        }
        return String(decoding: received, as: UTF8.self)
    }
}

enum RawConnectionError: Error {
    case failed(String)
}

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
