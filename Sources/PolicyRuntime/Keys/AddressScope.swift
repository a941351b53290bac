@_spi(RuleAuthoring) import PolicyJOSE

/// Where an address leads, as far as fetching keys is concerned: what a policy's key URL may
/// reach (docs/security.md, "Key URLs").
///
/// A policy file is untrusted input, and its `jwks_uri` makes the engine send a GET and quote
/// parts of the answer. Link-local addresses, cloud metadata services and the unspecified address
/// are refused unless the policy opts in (`allow_internal`); private and loopback addresses are
/// reachable but draw a lint warning; plain http reaches loopback only.
package enum AddressScope: String, Sendable, CaseIterable {
    /// 127.0.0.0/8, ::1 (and the name `localhost`): this machine's own services.
    case loopback
    /// 0.0.0.0/8 and `::`, which a connection reaches as this machine.
    case unspecified
    /// 169.254.0.0/16 and fe80::/10: the local link, where metadata services answer.
    case linkLocal = "link_local"
    /// A cloud provider's instance metadata or platform service, by address or well-known name.
    case cloudMetadata = "cloud_metadata"
    /// 10/8, 172.16/12, 192.168/16, 100.64/10 (shared address space) and fc00::/7, fec0::/10.
    case privateNetwork = "private_network"
    /// Any other address.
    case global

    /// Refused for every key URL unless the policy sets `allow_internal: true`.
    package var isRefused: Bool {
        self == .linkLocal || self == .cloudMetadata || self == .unspecified
    }

    /// The scope in words, after an address: "169.254.169.254, a cloud metadata service".
    package var phrase: String {
        switch self {
        case .loopback: "a loopback address of this machine"
        case .unspecified: "the unspecified address, which reaches this machine"
        case .linkLocal: "a link-local address"
        case .cloudMetadata: "a cloud metadata service"
        case .privateNetwork: "a private network address"
        case .global: "a public address"
        }
    }

    /// Instance metadata and platform services: AWS (EC2 IPv4 and IPv6, ECS task and EKS pod
    /// credentials), GCP, Azure (IMDS and the WireServer), Oracle Cloud (its legacy address),
    /// Alibaba Cloud.
    static let metadataAddresses: Set<IPAddress> = Set([
        "169.254.169.254", "169.254.170.2", "169.254.170.23", "fd00:ec2::254", "fd00:ec2::23",
        "168.63.129.16", "192.0.0.192", "100.100.100.200",
    ].compactMap { IPAddress(host: $0) })

    /// The names those services answer at.
    static let metadataNames: Set<String> = [
        "metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal",
    ]

    /// The scope of a URL's host before it is resolved: its literal address's, `loopback` for
    /// `localhost`, `cloudMetadata` for a metadata service's name; nil for any other name, whose
    /// scope is known once it resolves.
    package static func of(host: String) -> AddressScope? {
        if let address = IPAddress(host: host) { return address.scope }
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" || name.hasSuffix(".localhost") { return .loopback }
        if metadataNames.contains(name) { return .cloudMetadata }
        return nil
    }
}

extension IPAddress {
    /// Where this address leads; an IPv4-mapped IPv6 address leads where its IPv4 address does.
    package var scope: AddressScope {
        if let mapped = mappedIPv4 { return mapped.scope }
        if AddressScope.metadataAddresses.contains(self) { return .cloudMetadata }
        if isIPv4 {
            switch (bytes[0], bytes[1]) {
            case (0, _): return .unspecified
            case (127, _): return .loopback
            case (169, 254): return .linkLocal
            case (10, _), (172, 16...31), (192, 168), (100, 64...127): return .privateNetwork
            default: return .global
            }
        }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) {
            switch bytes[15] {
            case 0: return .unspecified
            case 1: return .loopback
            default: break
            }
        }
        switch (bytes[0], bytes[1] & 0xC0) {
        case (0xFE, 0x80): return .linkLocal
        case (0xFE, 0xC0): return .privateNetwork  // site-local, deprecated but routed by some networks
        default: return bytes[0] & 0xFE == 0xFC ? .privateNetwork : .global
        }
    }
}
