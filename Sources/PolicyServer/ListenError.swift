internal import NIOCore
internal import Foundation

extension PolicyServer {
    /// The server could not listen where it was told to (the port is taken, the address is not
    /// this machine's, binding needs privileges): an operator's error, said with the address.
    public struct ListenError: Error, Sendable, CustomStringConvertible {
        /// The address asked for.
        public let host: String
        /// The port asked for.
        public let port: Int
        /// Why, in words: `address in use`, `permission denied`, or the system's own message.
        public let reason: String

        init(host: String, port: Int, underlying: any Error) {
            self.host = host
            self.port = port
            if let error = underlying as? IOError {
                reason = switch error.errnoCode {
                case EADDRINUSE: "address in use (another process listens there; pick another port with --listen)"
                case EACCES: "permission denied (ports below 1024 need privileges)"
                case EADDRNOTAVAIL: "address not available (no interface of this machine has it)"
                default: String(cString: strerror(error.errnoCode)).lowercased()
                }
            } else {
                reason = "\(underlying)"
            }
        }

        /// `cannot listen on HOST:PORT: REASON`, an IPv6 host in brackets.
        public var description: String {
            "cannot listen on \(host.contains(":") ? "[\(host)]" : host):\(port): \(reason)"
        }
    }
}
