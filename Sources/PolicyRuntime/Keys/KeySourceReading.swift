internal import PolicyCrypto
internal import Foundation
@_spi(RuleAuthoring) import PolicyJOSE

/// Reading a key source from a policy (`keys`, `decryption.key`, `encrypted_fields.key`, section
/// 4 of the format), with `Keys`: which sources exist, their options, local keys loaded at
/// compile time through the file roots, remote ones checked for fetching later. An extension of
/// `RuleCompiler` because it reports through the compiler's located diagnostics.
extension RuleCompiler {
    static let keySourceKinds = ["jwks_file", "jwks", "jwk", "pem_file", "secret", "jwks_uri", "discovery"]
    static let remoteKeySourceKinds = ["jwks_uri", "discovery"]
    static let remoteKeyOptions = ["cache_ttl", "min_refresh_interval", "timeout", "stale_if_error", "max_wait", "allow_http", "allow_internal",
                                   "history", "history_grace"]
    static let keyOptions = ["min_rsa_bits", "require_kid", "x5c"] + remoteKeyOptions

    /// Reads a `keys` mapping. Local keys are loaded now, and their problems (a missing file, a
    /// JWKS with no usable key, an unset environment variable) are compile errors at the source's
    /// line; a remote source is checked here and fetched when first needed. Verification keys may
    /// be fetched or come from a token's `x5c`; decryption keys are private and must be local.
    /// Warns, at `node`, of each of `algorithms` that no local key of `source` can verify:
    /// tokens signed with it would fail with `key_unavailable`.
    mutating func warnUnverifiable(_ source: KeySource, algorithms: [JWSAlgorithm], at node: YAMLNode) {
        guard let keys = source.localKeys else { return }
        for algorithm in algorithms where !keys.keys.contains(where: { $0.canVerify(algorithm) }) {
            warning(.keySource, "no key from \(source.description) can verify \(algorithm.rawValue)", at: node,
                    hint: "tokens signed with \(algorithm.rawValue) will fail with key_unavailable")
        }
    }

    package mutating func keySource(_ node: YAMLNode, what: String = "'keys'", purpose: KeySource.Purpose = .verification) -> KeySource? {
        let read = readKeySource(node, what: what, purpose: purpose)
        let source = read.map { policyCompiler.keyOverride?.standingIn(for: $0) ?? $0 }
        if let source { keySources.append(source) }
        return source
    }

    private mutating func readKeySource(_ node: YAMLNode, what: String, purpose: KeySource.Purpose) -> KeySource? {
        guard let pairs = mapping(node, allowed: Self.keySourceKinds + Self.keyOptions, what: what) else { return nil }
        let kinds = pairs.filter { Self.keySourceKinds.contains($0.name) }
        let trustNode = node["x5c"]
        guard kinds.count == 1 || (kinds.isEmpty && trustNode != nil && purpose == .verification) else {
            error(kinds.isEmpty ? .missingKey : .conflict,
                  "\(what) needs exactly one source (\(Self.keySourceKinds.joined(separator: ", "))), found \(kinds.isEmpty ? "none" : kinds.map(\.name).joined(separator: " and "))",
                  at: node)
            return nil
        }
        let kind = kinds.first
        let isRemote = kind.map { Self.remoteKeySourceKinds.contains($0.name) } ?? false
        if purpose != .verification {
            for pair in pairs where Self.remoteKeySourceKinds.contains(pair.name) || pair.name == "x5c" {
                error(.invalidValue, "\(what) must be a local key; '\(pair.name)' supplies public keys for verification", at: pair.value)
                return nil
            }
        }
        var options = KeyLoadingOptions.standard
        var requireKid = false
        var allowHTTP = false
        var allowInternal = false
        var durations: [String: Duration] = [:]
        for option in pairs where Self.keyOptions.contains(option.name) {
            if Self.remoteKeyOptions.contains(option.name), !isRemote {
                error(.conflict, "'\(option.name)' applies to remote key sources (jwks_uri, discovery), not '\(kind?.name ?? "x5c")'", at: option.value)
                continue
            }
            switch option.name {
            case "min_rsa_bits":
                guard case let .integer(bits)? = option.value.scalar?.value, (1024...16384).contains(bits) else {
                    error(.invalidValue, "'min_rsa_bits' must be an integer from 1024 to 16384", at: option.value)
                    continue
                }
                if bits < 2048 {
                    warning(.insecureSetting, "'min_rsa_bits: \(bits)' accepts RSA keys below 2048 bits", at: option.value, hint: "keep the default of 2048 outside tests")
                }
                options.minimumRSABits = Int(bits)
            case "require_kid":
                requireKid = bool(option.value, what: "'require_kid'") ?? false
            case "allow_http":
                allowHTTP = bool(option.value, what: "'allow_http'") ?? false
                if allowHTTP {
                    warning(.insecureSetting, "'allow_http: true' lets keys arrive over plain http, where anyone on the path can replace them",
                            at: option.value, hint: "use it for loopback tests only")
                }
            case "allow_internal":
                allowInternal = bool(option.value, what: "'allow_internal'") ?? false
                if allowInternal {
                    warning(.insecureSetting, "'allow_internal: true' lets this policy's key URLs reach link-local addresses and cloud metadata services, "
                            + "where a machine's credentials are served", at: option.value,
                            hint: "only for a key server that really is on such an address, in a policy you trust")
                }
            case "x5c", "history":
                break
            default:
                guard let seconds = duration(option.value, what: "'\(option.name)'") else { continue }
                let minimum: Int64 = ["stale_if_error", "history_grace", "max_wait"].contains(option.name) ? 0 : 1
                guard seconds >= minimum, seconds <= 7 * 86400 else {
                    error(.invalidValue, "'\(option.name)' must be from \(minimum) s to 7 days", at: option.value)
                    continue
                }
                durations[option.name] = .seconds(seconds)
            }
        }
        let trust = trustNode.flatMap { certificateTrust($0) }
        if trustNode != nil, trust == nil { return nil }
        guard let kind else {
            return KeySource(origin: .tokenCertificate, purpose: purpose, description: trust!.description, requireKid: requireKid, certificateTrust: trust, keyOptions: options)
        }
        if isRemote {
            guard let location = remoteLocation(kind.name, kind.value, access: KeyURLAccess(allowHTTP: allowHTTP, allowInternal: allowInternal)) else {
                return nil
            }
            var remote = RemoteKeySource(location: location, allowHTTP: allowHTTP, allowInternal: allowInternal, keyOptions: options)
            remote.cacheTTL = durations["cache_ttl"] ?? remote.cacheTTL
            remote.minRefreshInterval = durations["min_refresh_interval"] ?? remote.minRefreshInterval
            remote.timeout = durations["timeout"] ?? remote.timeout
            remote.staleIfError = durations["stale_if_error"] ?? remote.staleIfError
            remote.maxWait = durations["max_wait"] ?? remote.maxWait
            if remote.minRefreshInterval > remote.cacheTTL {
                error(.conflict, "'min_refresh_interval' is longer than 'cache_ttl', so the set could not be refreshed when it expires", at: node)
                return nil
            }
            if let historyNode = node["history"] {
                guard let history = keyHistory(historyNode, of: remote, grace: durations["history_grace"] ?? .zero, options: options) else { return nil }
                return KeySource(origin: .history(history, of: remote), purpose: purpose, description: remote.description, requireKid: requireKid,
                                 certificateTrust: trust, keyOptions: options)
            }
            if let grace = node["history_grace"] {
                error(.conflict, "'history_grace' applies with 'history', the directory of key snapshots", at: grace)
                return nil
            }
            return KeySource(origin: .remote(remote), purpose: purpose, description: remote.description, requireKid: requireKid, certificateTrust: trust, keyOptions: options)
        }
        guard let (keys, shown) = localKeys(kind.name, kind.value, options: options) else { return nil }
        return KeySource(origin: .local(keys), purpose: purpose, description: shown, requireKid: requireKid, certificateTrust: trust, keyOptions: options)
    }

    /// `history: DIR`: the snapshots of `remote` stored there, read now through the file roots;
    /// a directory with none yet is a warning (every evaluation is then `keys_before_history`).
    private mutating func keyHistory(_ node: YAMLNode, of remote: RemoteKeySource, grace: Duration, options: KeyLoadingOptions) -> KeyHistory? {
        guard let path = literalString(node, what: "'history'") else { return nil }
        let directory = resolvePath(path, from: node)
        let roots = policyCompiler.fileRoots ?? FileRoots.beside(node.location.file)
        do {
            let reads = policyCompiler.loader.reads
            let history = try KeyHistory(source: remote.description, directory: directory, grace: grace, options: options) { file, maxBytes throws(KeyHistory.LoadError) in
                try reads.bytes(of: file) { () throws(KeyHistory.LoadError) in try Self.historyFile(file, maxBytes, roots) }
            }
            if history.snapshots.isEmpty {
                warning(.keySource, "\(directory) holds no snapshot of \(remote.description) yet; every token will be keys_before_history", at: node,
                        hint: "take one with policy-run keys snapshot --policy \(node.location.file)")
            }
            return history
        } catch {
            self.error(.keySource, "the key history \(directory): \(error.message)", at: node)
            return nil
        }
    }

    /// A file of a key history, read through the file roots: nil when it is missing inside them.
    private static func historyFile(_ file: String, _ maxBytes: Int, _ roots: FileRoots) throws(KeyHistory.LoadError) -> [UInt8]? {
        if let refusal = roots.admit(file, for: .keyFile) {
            // Missing inside the roots is a history without that file; outside, refused.
            if refusal.code != .fileOutsideRoots, !FileManager.default.fileExists(atPath: file) { return nil }
            throw KeyHistory.LoadError(message: refusal.message)
        }
        guard let handle = FileHandle(forReadingAtPath: file) else { throw KeyHistory.LoadError(message: "cannot read \(file)") }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: maxBytes + 1)) ?? Data()
        guard data.count <= maxBytes else { throw KeyHistory.LoadError(message: "\(file) is larger than \(maxBytes) bytes") }
        return [UInt8](data)
    }

    /// A `jwks_uri` or `discovery` URL: absolute, with a host, https unless `allow_http` (and
    /// then to a loopback host); a host written as a link-local, metadata or unspecified address
    /// (or a metadata service's name) is refused without `allow_internal`, and a private or
    /// loopback one warned about. A host name is checked again once resolved, at fetch time.
    private mutating func remoteLocation(_ kind: String, _ value: YAMLNode, access: KeyURLAccess) -> RemoteKeySource.Location? {
        guard let text = literalString(value, what: "'\(kind)'") else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host(percentEncoded: false), !host.isEmpty,
              scheme == "https" || scheme == "http" else {
            error(.invalidValue, "'\(kind)' must be an absolute https URL, found '\(text)'", at: value)
            return nil
        }
        // Classified decoded, as libcurl decodes a percent-encoded host; quoted as written.
        let scope = AddressScope.of(host: host)
        let shown = url.host(percentEncoded: true) ?? host
        if scheme == "http" {
            guard access.allowHTTP else {
                error(.insecureSetting, "'\(kind)' is plain http; keys must come over https", at: value,
                      hint: "for a loopback test server, add allow_http: true")
                return nil
            }
            guard scope == .loopback else {
                error(.insecureSetting, "'\(kind)' is plain http to '\(shown)', which is not a loopback host; allow_http reaches 127.0.0.0/8, ::1 and localhost only",
                      at: value, hint: "serve the keys over https, or run the test server on 127.0.0.1")
                return nil
            }
        }
        switch scope {
        case let scope? where scope.isRefused && !access.allowInternal:
            error(.internalAddress, "'\(kind)' names '\(shown)', \(scope.phrase); a policy's key URLs may not reach it", at: value,
                  hint: "if the keys really are served there, set allow_internal: true beside it")
            return nil
        case let scope? where (scope == .privateNetwork || (scope == .loopback && scheme == "https")) && !access.allowInternal:
            warning(.internalAddress, "'\(kind)' names '\(shown)', \(scope.phrase): the engine will send requests into the network it runs in", at: value,
                    hint: "use the provider's public https URL, or note why with '# lint: ignore=internal_address'")
        default:
            break
        }
        return kind == "jwks_uri" ? .jwksURI(url) : .discovery(issuer: text)
    }

    /// `x5c: {trust: ca.pem, leaf: {...}}`: the anchors are read now, so a bad file is a compile error.
    private mutating func certificateTrust(_ node: YAMLNode) -> CertificateTrust? {
        guard mapping(node, allowed: ["trust", "leaf"], what: "'x5c'") != nil else { return nil }
        var leaf: CertificateLeafMatcher?
        if let leafNode = node["leaf"] {
            guard let matcher = leafMatcher(leafNode) else { return nil }
            leaf = matcher
        }
        guard let value = node["trust"] else {
            error(.missingKey, "'x5c' needs 'trust': a PEM file of the certificates to trust", at: node)
            return nil
        }
        guard let path = literalString(value, what: "'x5c.trust'") else { return nil }
        let resolved = resolvePath(path, from: value)
        guard let text = readKeyFile(resolved, at: value) else { return nil }
        do {
            return try CertificateTrust(pem: String(decoding: text, as: UTF8.self), file: resolved, leaf: leaf)
        } catch {
            self.error(.keySource, "\(resolved): \(error.message)", at: value)
            return nil
        }
    }

    /// `x5c.leaf`: subject attributes, alternative names, extended key usages, policies and
    /// admission roles the leaf certificate must carry.
    private mutating func leafMatcher(_ node: YAMLNode) -> CertificateLeafMatcher? {
        let keys = ["subject", "san", "extended_key_usage", "policies", "admission_roles"]
        guard let pairs = mapping(node, allowed: keys, what: "'x5c.leaf'") else { return nil }
        guard !pairs.isEmpty else {
            error(.missingKey, "'x5c.leaf' needs at least one of \(keys.joined(separator: ", "))", at: node)
            return nil
        }
        var matcher = CertificateLeafMatcher()
        var failed = false
        func valueLists(_ node: YAMLNode, what: String, allowed: [String]?) -> [String: [String]]? {
            let entries: [YAMLPair]?
            if let allowed {
                entries = mapping(node, allowed: allowed, what: what)
            } else {
                entries = node.pairs
                if entries == nil { error(.wrongType, "\(what) must map attribute names to values, found \(node.shapeDescription)", at: node) }
            }
            guard let entries else { return nil }
            var lists: [String: [String]] = [:]
            for entry in entries {
                guard let values = literalStrings(entry.value, what: "\(what).\(entry.name)") else { return nil }
                lists[entry.name] = values
            }
            return lists
        }
        func identifiers(_ node: YAMLNode, what: String, names: [String: String] = [:]) -> [String]? {
            guard let values = literalStrings(node, what: what) else { return nil }
            var oids: [String] = []
            for value in values {
                let oid = names[value] ?? value
                guard CertificateLeafMatcher.isObjectIdentifier(oid) else {
                    error(.invalidValue, "\(what): '\(value)' is not an object identifier such as 1.2.276.0.76.4.260", at: node,
                          hint: names.isEmpty ? nil : "or one of \(names.keys.sorted().joined(separator: ", "))")
                    return nil
                }
                oids.append(oid)
            }
            return oids
        }
        for pair in pairs {
            switch pair.name {
            case "subject":
                guard let lists = valueLists(pair.value, what: "'x5c.leaf.subject'", allowed: nil) else { failed = true; continue }
                matcher.subject = lists
            case "san":
                guard let lists = valueLists(pair.value, what: "'x5c.leaf.san'", allowed: X509Certificate.AlternativeNameKind.allCases.map(\.rawValue))
                else { failed = true; continue }
                matcher.alternativeNames = lists
            case "extended_key_usage":
                guard let oids = identifiers(pair.value, what: "'x5c.leaf.extended_key_usage'", names: CertificateLeafMatcher.keyUsageNames) else { failed = true; continue }
                matcher.extendedKeyUsages = oids
            case "policies":
                guard let oids = identifiers(pair.value, what: "'x5c.leaf.policies'") else { failed = true; continue }
                matcher.policies = oids
            default:
                guard let oids = identifiers(pair.value, what: "'x5c.leaf.admission_roles'") else { failed = true; continue }
                matcher.admissionRoles = oids
            }
        }
        return failed ? nil : matcher
    }

    private mutating func readKeyFile(_ path: String, at node: YAMLNode) -> Data? {
        guard admitFile(path, for: .keyFile, at: node) else { return nil }
        guard let data = policyCompiler.loader.reads.bytes(of: path, { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }) else {
            error(.keySource, "cannot read the key file \(path)", at: node)
            return nil
        }
        guard data.count <= 1 << 20 else {
            error(.keySource, "the key file \(path) is larger than 1 MiB", at: node)
            return nil
        }
        return Data(data)
    }

    /// Loads a local source's keys and says how it is written, for traces.
    private mutating func localKeys(_ kind: String, _ value: YAMLNode, options: KeyLoadingOptions) -> (JWKSet, String)? {
        let shown: String
        let loaded: JWKSet?
        switch kind {
        case "jwks_file", "pem_file":
            guard let path = literalString(value, what: "'\(kind)'") else { return nil }
            let resolved = resolvePath(path, from: value)
            shown = "\(kind) \(resolved)"
            guard let data = readKeyFile(resolved, at: value) else { return nil }
            loaded = kind == "jwks_file"
                ? keySet(value, shown) { () throws(JOSEError) in try JWKSet(json: Array(data), options: options) }
                : keySet(value, shown) { () throws(JOSEError) in
                    try JWKSet(keys: [JWK(pem: String(decoding: data, as: UTF8.self), options: options)])
                }
        case "jwks", "jwk":
            guard let json = jsonValue(value, what: "'\(kind)'"), case let .object(object) = json else {
                if value.pairs == nil { error(.wrongType, "'\(kind)' must be a mapping, found \(value.shapeDescription)", at: value) }
                return nil
            }
            shown = "inline \(kind)"
            loaded = kind == "jwks"
                ? keySet(value, shown) { () throws(JOSEError) in try JWKSet(object: object, options: options) }
                : keySet(value, shown) { () throws(JOSEError) in try JWKSet(keys: [JWK(object: object, options: options)]) }
        default:
            guard value.scalar?.string?.contains("${env:") == true else {
                error(.invalidValue, "'secret' must come from the environment: secret: ${env:NAME}", at: value,
                      hint: "never write a secret into a policy file")
                return nil
            }
            guard let text = environmentString(value, what: "'secret'") else { return nil }
            shown = "secret \(value.scalar!.text)"
            let bytes: [UInt8]
            if text.hasPrefix("raw:") {
                bytes = Array(text.utf8.dropFirst(4))
            } else {
                guard let decoded = try? Base64URL.decode(text) else {
                    // The message names the variable, never a character of its value.
                    self.error(.keySource, "the secret from \(value.scalar!.text) is not base64url text", at: value, hint: "prefix it with raw: to use the text itself")
                    return nil
                }
                bytes = decoded
            }
            loaded = keySet(value, shown) { () throws(JOSEError) in try JWKSet(keys: [JWK(secret: bytes)]) }
        }
        return loaded.map { ($0, shown) }
    }

    private mutating func keySet(_ node: YAMLNode, _ shown: String, _ load: () throws(JOSEError) -> JWKSet) -> JWKSet? {
        do {
            let set = try load()
            guard !set.keys.isEmpty else {
                let reasons = set.skipped.map { "key \($0.index)\($0.kid.map { " (\($0))" } ?? ""): \($0.error.message)" }
                error(.keySource, "\(shown) holds no usable key" + (reasons.isEmpty ? "" : ": " + reasons.joined(separator: "; ")), at: node)
                return nil
            }
            for skipped in set.skipped {
                warning(.keySource, "\(shown): key \(skipped.index)\(skipped.kid.map { " (\($0))" } ?? "") is ignored: \(skipped.error.message)", at: node)
            }
            return set
        } catch {
            self.error(.keySource, "\(shown): \(error.messageWithoutContent)", at: node)
            return nil
        }
    }
}
