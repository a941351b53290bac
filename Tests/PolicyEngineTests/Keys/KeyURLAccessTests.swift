import CCurl
import FlyingFox
import Foundation
import KeyServer
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import Testing

/// What a key URL may reach: addresses read as libcurl reads them, classified, and checked both on
/// the URL and on each address a connection is about to be made to (a name may resolve anywhere).
@Suite("Key URL access")
struct KeyURLAccessTests {
    @Test("IPv4 hosts are read in every form libcurl accepts; names are not addresses")
    func parsing() {
        let metadata: [UInt8] = [169, 254, 169, 254]
        for host in ["169.254.169.254", "2852039166", "0xa9fea9fe", "0xa9.0xfe.0xa9.0xfe", "0251.0376.0251.0376", "169.254.43518", "169.16689662",
                     "169.254.169.254."] {
            #expect(IPAddress(host: host)?.bytes == metadata, "\(host)")
        }
        #expect(IPAddress(host: "0")?.bytes == [0, 0, 0, 0])
        #expect(IPAddress(host: "127.1")?.bytes == [127, 0, 0, 1])
        for name in ["example.com", "169.254.example.com", "1.2.3.4.5", "256.1.1.1", "1.2.3.0x100", "09.1.1.1", "+1.2.3.4", "1..2.3", "", "4294967296",
                     "[::1", "::g"] {
            #expect(IPAddress(host: name) == nil, "\(name)")
        }
        #expect(IPAddress(host: "[::1]")?.bytes == Array(repeating: 0, count: 15) + [1])
        #expect(IPAddress(host: "fe80::1%eth0")?.description == "fe80::1")
        #expect(IPAddress(host: "[::ffff:169.254.169.254]")?.mappedIPv4?.bytes == metadata)
        #expect(IPAddress(host: "2852039166")?.description == "169.254.169.254")
        #expect(IPAddress(bytes: [1, 2, 3]) == nil)
    }

    @Test("addresses and names are classified by scope")
    func scopes() {
        let expected: [(String, AddressScope?)] = [
            ("127.0.0.1", .loopback), ("127.255.0.9", .loopback), ("::1", .loopback), ("::ffff:127.0.0.1", .loopback), ("localhost", .loopback),
            ("LOCALHOST.", .loopback), ("api.localhost", .loopback),
            ("0.0.0.0", .unspecified), ("0.1.2.3", .unspecified), ("::", .unspecified),
            ("169.254.0.1", .linkLocal), ("169.254.255.255", .linkLocal), ("fe80::1", .linkLocal), ("febf::1", .linkLocal),
            ("169.254.169.254", .cloudMetadata), ("169.254.170.2", .cloudMetadata), ("fd00:ec2::254", .cloudMetadata), ("100.100.100.200", .cloudMetadata),
            ("168.63.129.16", .cloudMetadata), ("::ffff:169.254.169.254", .cloudMetadata), ("metadata.google.internal", .cloudMetadata),
            ("metadata", .cloudMetadata), ("instance-data.ec2.internal", .cloudMetadata),
            ("10.0.0.1", .privateNetwork), ("172.16.0.1", .privateNetwork), ("172.31.255.255", .privateNetwork), ("192.168.0.1", .privateNetwork),
            ("100.64.0.1", .privateNetwork), ("100.127.255.255", .privateNetwork), ("fc00::1", .privateNetwork), ("fdff::1", .privateNetwork),
            ("fec0::1", .privateNetwork),
            ("172.15.255.255", .global), ("172.32.0.0", .global), ("100.63.255.255", .global), ("100.128.0.0", .global), ("8.8.8.8", .global),
            ("2001:db8::1", .global), ("fe00::1", .global), ("169.253.255.255", .global),
            ("idp.example.com", nil), ("metadata.example.com", nil),
        ]
        for (host, scope) in expected {
            #expect(AddressScope.of(host: host) == scope, "\(host)")
        }
        #expect(AddressScope.allCases.filter(\.isRefused) == [.unspecified, .linkLocal, .cloudMetadata])
    }

    @Test("URLs: https anywhere but refused scopes; plain http to loopback with allow_http; allow_internal opens refused scopes")
    func urls() {
        let none = KeyURLAccess(), http = KeyURLAccess(allowHTTP: true), opened = KeyURLAccess(allowInternal: true)
        let cases: [(String, KeyURLAccess, KeyFetchError.Code?)] = [
            ("https://idp.example.com/jwks", none, nil), ("https://10.0.0.1/jwks", none, nil), ("https://127.0.0.1:8443/jwks", none, nil),
            ("https://169.254.169.254/latest/meta-data/", none, .refusedAddress), ("https://[fd00:ec2::254]/", none, .refusedAddress),
            ("https://metadata.google.internal/computeMetadata/v1/", none, .refusedAddress), ("https://0.0.0.0/", none, .refusedAddress),
            ("https://169.254.169.254/latest/meta-data/", opened, nil), ("https://169.254.169.254/", http, .refusedAddress),
            ("http://127.0.0.1:8080/jwks", none, .insecureURL), ("http://127.0.0.1:8080/jwks", http, nil), ("http://localhost/jwks", http, nil),
            ("http://[::1]/jwks", http, nil), ("http://example.com/jwks", http, .insecureURL), ("http://169.254.169.254/", http, .insecureURL),
            ("http://10.0.0.1/jwks", KeyURLAccess(allowHTTP: true, allowInternal: true), .insecureURL),
            ("ftp://127.0.0.1/jwks", http, .insecureURL), ("file:///etc/passwd", http, .insecureURL),
        ]
        for (text, access, code) in cases {
            let refusal = access.refusal(URL(string: text)!)
            #expect(refusal?.code == code, "\(text) with \(access): \(String(describing: refusal))")
        }
        #expect(none.refusal(URL(string: "https://169.254.169.254/")!)?.message
            == "https://169.254.169.254/ names 169.254.169.254, a cloud metadata service; key URLs may not reach it unless the policy sets allow_internal: true")
    }

    @Test("connections: refused scopes only with allow_internal; over plain http, loopback only")
    func connections() {
        let none = KeyURLAccess(), opened = KeyURLAccess(allowInternal: true)
        func admits(_ access: KeyURLAccess, _ host: String, plainHTTP: Bool = false) -> Bool? {
            IPAddress(host: host).map { access.admits($0, plainHTTP: plainHTTP) }
        }
        for host in ["93.184.216.34", "10.0.0.1", "127.0.0.1", "2001:db8::1"] {
            #expect(admits(none, host) == true, "\(host)")
        }
        for host in ["169.254.169.254", "::ffff:169.254.169.254", "fe80::1", "0.0.0.0", "fd00:ec2::254", "100.100.100.200"] {
            #expect(admits(none, host) == false, "\(host)")
            #expect(admits(opened, host) == true, "\(host)")
        }
        #expect(admits(none, "127.0.0.1", plainHTTP: true) == true && admits(none, "::1", plainHTTP: true) == true)
        #expect(admits(opened, "10.0.0.1", plainHTTP: true) == false && admits(opened, "0.0.0.0", plainHTTP: true) == false)
        #expect(admits(none, "93.184.216.34", plainHTTP: true) == false)
    }

    @Test("a metadata URL is refused before any connection, within no timeout; loopback http with allow_http still fetches, by name too")
    func fetches() async throws {
        let fetcher = KeyDocumentFetcher(timeout: .seconds(15), allowHTTP: true)
        for url in ["https://169.254.169.254/latest/meta-data/iam/security-credentials/", "https://metadata.google.internal/computeMetadata/v1/",
                    "https://[fd00:ec2::254]/latest/meta-data/"] {
            let start = ContinuousClock.now
            do {
                _ = try await fetcher.fetch(URL(string: url)!)
                Issue.record("\(url) was fetched")
            } catch {
                #expect(error.code == .refusedAddress && error.message.contains("allow_internal: true"), "\(error)")
            }
            #expect(ContinuousClock.now - start < .seconds(2))
        }
        let server = try await KeyServer()
        await server.json("/jwks", #"{"keys":[]}"#)
        #expect(try await fetcher.fetch(server.url("/jwks")) == Array(#"{"keys":[]}"#.utf8))
        #expect(try await fetcher.fetch(URL(string: "http://localhost:\(server.port)/jwks")!) == Array(#"{"keys":[]}"#.utf8))
        #expect(await server.requests("/jwks") == 2)
        await server.stop()
    }

    @Test("a redirect is checked as the first URL is: to a metadata address or to http off loopback, refused without being followed")
    func redirects() async throws {
        let server = try await KeyServer()
        await server.route("/metadata") { _ in HTTPResponse(statusCode: .found, headers: [.location: "https://169.254.169.254/latest/meta-data/"]) }
        await server.route("/decimal") { _ in HTTPResponse(statusCode: .found, headers: [.location: "https://2852039166/latest/meta-data/"]) }
        await server.route("/http") { _ in HTTPResponse(statusCode: .found, headers: [.location: "http://example.com/jwks"]) }
        let fetcher = KeyDocumentFetcher(timeout: .seconds(15), allowHTTP: true)
        for (path, code) in [("/metadata", KeyFetchError.Code.refusedAddress), ("/decimal", .refusedAddress), ("/http", .insecureURL)] {
            do {
                _ = try await fetcher.fetch(server.url(path))
                Issue.record("\(path) was followed")
            } catch {
                #expect(error.code == code && error.message.hasPrefix("a redirect from \(server.url(path).absoluteString) is refused: "), "\(error)")
            }
        }
        await server.stop()
    }

    @Test("libcurl asks before each connection: a refused address is never connected to, and the filter sees the resolved bytes")
    func socketFilter() async throws {
        let library = try CurlLibrary.shared.get()
        let server = try await KeyServer()
        await server.json("/jwks", #"{"keys":[]}"#)
        // Refuses every address: what a name resolving to a metadata address meets.
        let refuseAll: CCurlAddressFilter = { _, _, _ in 0 }
        let refused = await library.get(server.url("/jwks").absoluteString, accept: "application/json", timeout: .seconds(15), maxBytes: 1 << 20,
                                        allowHTTP: true, filter: refuseAll, rules: 0)
        guard case .refusedAddress("127.0.0.1") = refused else {
            Issue.record("expected the address refused, got \(refused)")
            return
        }
        #expect(await server.requests("/jwks") == 0)
        // Admits 127.0.0.1 only, as the bytes the resolver gave.
        let onlyLoopback: CCurlAddressFilter = { bytes, length, _ in
            length == 4 && bytes?[0] == 127 && bytes?[1] == 0 && bytes?[2] == 0 && bytes?[3] == 1 ? 1 : 0
        }
        let answered = await library.get("http://localhost:\(server.port)/jwks", accept: "application/json", timeout: .seconds(15), maxBytes: 1 << 20,
                                         allowHTTP: true, filter: onlyLoopback, rules: 0)
        guard case .answered(status: 200, contentType: _, redirect: _, body: let body) = answered else {
            Issue.record("expected an answer, got \(answered)")
            return
        }
        #expect(body == Array(#"{"keys":[]}"#.utf8))
        #expect(await server.requests("/jwks") == 1)
        await server.stop()
    }
}
