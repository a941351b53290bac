import Foundation
@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@testable import Rules
import Testing

/// `certificate_binding` (RFC 8705 §3): the client certificate as nginx and Envoy forward it, its
/// thumbprint compared with the token's `cnf.x5t#S256`, and the policies it can be written in.
@Suite("Certificate binding")
struct CertificateBindingRuleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let pem = try! String(contentsOf: root.appendingPathComponent("Policies/examples/mtls/client.cert.pem"), encoding: .utf8)
    /// openssl x509 -outform DER | sha256sum, in base64url and hex.
    static let thumbprint = "T9EhuOIqypG6day77iiluAWBVogR-_tFQkk3pfgw96U"
    static let hex = "4fd121b8e22aca91ba75acbbee28a5b80581568811fbfb45424937a5f830f7a5"

    @Test("nginx's URL-escaped PEM, a plain PEM and Envoy's XFCC Hash give the thumbprint openssl computes")
    func thumbprints() throws {
        let escaped = Self.pem.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))!
        #expect(escaped.hasPrefix("-----BEGIN%20CERTIFICATE"))
        #expect(try ClientCertificate.thumbprint(escaped, format: .pem).get() == Self.thumbprint)
        #expect(try ClientCertificate.thumbprint(Self.pem, format: .pem).get() == Self.thumbprint)
        let xfcc = "By=spiffe://cluster.local/ns/default/sa/api;Hash=\(Self.hex);Subject=\"CN=client s6BhdRkqt3,O=Example Client\";URI="
        #expect(try ClientCertificate.thumbprint(xfcc, format: .xfcc).get() == Self.thumbprint)
        #expect(try ClientCertificate.thumbprint("Hash=\(Self.hex.uppercased())", format: .xfcc).get() == Self.thumbprint)
        // Go's servers (Caddy) write a header's newlines as spaces.
        #expect(try ClientCertificate.thumbprint(Self.pem.replacingOccurrences(of: "\n", with: " "), format: .pem).get() == Self.thumbprint)
        // A quoted value may hold ';', ',' and '=' (and an escaped quote): none of them is a field.
        let quoted = #"hash=\#(Self.hex);Subject="CN=a\",b;Hash=00";URI=spiffe://x"#
        #expect(try ClientCertificate.thumbprint(quoted, format: .xfcc).get() == Self.thumbprint)
    }

    @Test("no certificate, two, a chain of proxies, a short or repeated Hash: each refused, never a guess")
    func refusals() {
        let refused = { (value: String, format: ClientCertificate.Format) -> Bool in
            if case .failure = ClientCertificate.thumbprint(value, format: format) { return true }
            return false
        }
        #expect(refused("", .pem))
        #expect(refused("MIIB...", .pem))
        #expect(refused("-----BEGIN CERTIFICATE-----%ZZ", .pem))
        #expect(refused(Self.pem + Self.pem, .pem))
        #expect(refused("By=a;Hash=\(Self.hex),By=b;Hash=\(Self.hex)", .xfcc))
        #expect(refused("Hash=\(Self.hex);Hash=\(Self.hex)", .xfcc))
        #expect(refused("Hash=\(Self.hex.dropLast(2))", .xfcc))
        #expect(refused("Hash=\(Self.hex.dropLast(1))g", .xfcc))
        #expect(refused("By=a", .xfcc))
        #expect(refused(#"Subject="abc;Hash=\#(Self.hex)"#, .xfcc))
        #expect(refused(Self.pem + "trailing text", .pem))
        #expect(refused(Self.pem.replacingOccurrences(of: "-----END CERTIFICATE-----", with: ""), .pem))
    }

    @Test("the policy must judge a token, and name a header; a format is pem or xfcc")
    func compileErrors() {
        func problems(_ text: String) -> [String] {
            do {
                _ = try Policy.load(text: text, environment: [:], fileRoots: FileRoots([Self.root.path]))
                return []
            } catch {
                return error.sorted.filter { $0.severity == .error }.map { "\($0.location.line):\($0.location.column) \($0.code.rawValue)" }
            }
        }
        #expect(problems("policy: p\nrequest:\n  certificate_binding: {header: X-Client-Cert}\n") == ["3:24 conflict"])
        let token = "token:\n  algorithms: [ES256]\n  keys: {pem_file: \(Self.root.path)/Policies/keys/test-es256.pub.pem}\n"
        #expect(problems("policy: p\n" + token + "request:\n  certificate_binding: {format: xfcc}\n") == ["6:24 missing_key"])
        #expect(problems("policy: p\n" + token + "request:\n  certificate_binding: {header: X-Cert, format: der}\n") == ["6:49 invalid_value"])
        #expect(problems("policy: p\n" + token + "request:\n  certificate_binding: {header: 'X Cert'}\n") == ["6:33 invalid_value"])
    }
}
