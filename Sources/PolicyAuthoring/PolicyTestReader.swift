internal import Foundation
@_spi(RuleAuthoring) internal import PolicyEngine
@_spi(RuleAuthoring) internal import PolicyJOSE
@_spi(RuleAuthoring) package import PolicyRuntime

/// Reads `NAME.test.yaml` files (docs/policy-format.md §9), reporting every problem of a file
/// at its `file:line:column` in one pass, as the policy compiler does.
///
/// Test files sit in the same repositories as policies and are read as carefully: through the
/// same size- and node-bounded YAML loader, and a `@FILE` fixture only from below the test
/// file's own directory.
package struct PolicyTestReader: Sendable {
    /// How test files are read (size and node limits).
    package var loader: YAMLLoader
    /// The largest fixture (`jwt: @FILE`) read.
    package var maxFixtureBytes = 1 << 20

    /// A reader with the policy loader's limits.
    package init(loader: YAMLLoader = YAMLLoader()) {
        self.loader = loader
    }

    /// The keys at the top of a test file, in the order the docs list them.
    package static let fileKeys = ["policy", "now", "inputs", "token", "request", "dpop", "cases"]
    /// The keys of a case.
    package static let caseKeys = ["name", "now", "inputs", "token", "jwt", "request", "dpop", "callback", "expect"]
    static let tokenKeys = ["claims", "header", "corrupt_signature", "embedded"]
    static let dpopKeys = ["claims", "header", "corrupt_signature", "key", "scheme", "replay"]
    static let expectKeys = ["valid", "codes", "outputs"]
    /// Claims that hold NumericDate values: a case may write them as RFC 3339 or relative to `now`.
    static let timeClaims: Set<String> = ["exp", "nbf", "iat", "auth_time"]

    /// Reads and checks the test file at `path`.
    ///
    /// - Throws: `PolicyDiagnostics` with every problem of the file, each located.
    package func read(file path: String) throws(PolicyDiagnostics) -> PolicyTestFile {
        let (root, _) = try loader.load(file: path)
        var reading = TestFileReading(file: path, roots: FileRoots.beside(path), maxFixtureBytes: maxFixtureBytes)
        let file = reading.file(root)
        guard let file, reading.diagnostics.isEmpty else { throw PolicyDiagnostics(reading.diagnostics) }
        return file
    }
}

/// One pass over a test file's YAML, collecting diagnostics.
struct TestFileReading {
    let file: String
    let roots: FileRoots
    let maxFixtureBytes: Int
    var diagnostics: [Diagnostic] = []

    mutating func error(_ code: DiagnosticCode, _ message: String, at node: YAMLNode, hint: String? = nil) {
        // The file's base token is read again for every case: report its problems once.
        let diagnostic = Diagnostic(.error, code, message, at: node.location, path: node.path, hint: hint)
        if !diagnostics.contains(diagnostic) { diagnostics.append(diagnostic) }
    }

    mutating func file(_ root: YAMLNode) -> PolicyTestFile? {
        guard checkKeys(root, allowed: PolicyTestReader.fileKeys, what: "a test file") else { return nil }
        var policyName: String?
        if let node = root["policy"] {
            if let name = string(node, what: "'policy'") {
                if name.isEmpty || name.contains("/") || name.hasPrefix(".") {
                    error(.invalidValue, "'policy' names the policy under test by its name, found '\(name)'", at: node,
                          hint: "write the policy's name; the runner reads NAME.yaml beside the test file")
                } else {
                    policyName = name
                }
            }
        } else {
            error(.missingKey, "a test file needs 'policy': the name of the policy under test", at: root)
        }
        var defaults = CaseDefaults()
        if let node = root["now"] { defaults.now = time(node, what: "'now'") }
        if let node = root["inputs"] { defaults.inputs = inputs(node) ?? [:] }
        defaults.token = root["token"]
        if let baseToken = defaults.token, checkKeys(baseToken, allowed: PolicyTestReader.tokenKeys, what: "'token'") {
            // Checked once here with a fixed time; each case reads it again at its own `now`.
            _ = minted(nil, base: baseToken, now: 0)
        }
        if let node = root["request"] { defaults.request = requestObject(node) }
        if let node = root["dpop"] {
            defaults.dpop = node
            _ = proof(layers: [node], now: 0, token: [])
        }
        var cases: [PolicyTestCase] = []
        if let node = root["cases"] {
            if let items = node.items, !items.isEmpty {
                var names: [String: SourceLocation] = [:]
                for item in items {
                    guard let testCase = testCase(item, defaults: defaults) else { continue }
                    if let first = names[testCase.name] {
                        error(.conflict, "two cases are named '\(testCase.name)' (the first at line \(first.line))", at: item["name"] ?? item)
                    }
                    names[testCase.name] = names[testCase.name] ?? testCase.location
                    cases.append(testCase)
                }
            } else {
                error(.wrongType, "'cases' must be a non-empty list, found \(node.shapeDescription)", at: node)
            }
        } else {
            error(.missingKey, "a test file needs 'cases': a list of cases", at: root)
        }
        guard let policyName else { return nil }
        return PolicyTestFile(path: file, policyName: policyName, policyLocation: root["policy"]!.location, cases: cases)
    }

    /// What the top of a file gives every case.
    struct CaseDefaults {
        var now: Double?
        var inputs: [String: JSONValue] = [:]
        /// The base of minted tokens, read at each case's `now`.
        var token: YAMLNode?
        /// The base of requests.
        var request: JSONObject?
        /// The base of DPoP proofs, read at each case's `now`.
        var dpop: YAMLNode?
    }

    private mutating func testCase(_ node: YAMLNode, defaults: CaseDefaults) -> PolicyTestCase? {
        guard checkKeys(node, allowed: PolicyTestReader.caseKeys, what: "a case") else { return nil }
        let errorsBefore = diagnostics.count
        var name: String?
        if let nameNode = node["name"] { name = string(nameNode, what: "'name'") } else { error(.missingKey, "a case needs 'name'", at: node) }
        var now = defaults.now
        if let nowNode = node["now"] { now = time(nowNode, what: "'now'") }
        if now == nil, node["now"] == nil {
            error(.missingKey, "the case needs 'now' (here or at the top of the file): a test judges at a fixed time",
                  at: node, hint: "add now: 2026-11-21T09:30:00Z")
        }
        var inputs = defaults.inputs
        if let node = node["inputs"], let own = self.inputs(node) { inputs.merge(own) { $1 } }
        // An input set to null is not supplied: a case can take back one the file gives.
        inputs = inputs.filter { $0.value != .null }
        if node["token"] != nil, node["jwt"] != nil {
            error(.conflict, "a case has 'token' (minted) or 'jwt' (literal), not both", at: node["jwt"]!)
        }
        var token: TestToken?
        // A request comes with the file's token (a policy judging both binds them: DPoP, mTLS).
        let withProof = (defaults.dpop != nil || node["dpop"] != nil) && node["dpop"]?.scalar?.value != .null
        let usesBase = defaults.token != nil && node["jwt"] == nil && (withProof || node["callback"] == nil)
        if let now, node["token"] != nil || usesBase {
            token = minted(node["token"], base: defaults.token, now: now)
        }
        if let jwtNode = node["jwt"], let text = fixtureText(jwtNode, what: "'jwt'") {
            token = .literal(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        var request: [UInt8]?
        if let requestNode = node["request"] {
            request = self.request(requestNode, base: defaults.request)
        } else if let base = defaults.request {
            request = JSONValue.object(base).serializedBytes()
        }
        var dpop: MintedProof?
        let dpopLayers = [defaults.dpop, node["dpop"]].compactMap { $0 }
        if let now, withProof {
            dpop = proof(layers: dpopLayers, now: now, token: [defaults.token, node["token"]].compactMap { $0 })
            if request == nil { error(.missingKey, "a case with 'dpop' needs a 'request' to make the proof for", at: node["dpop"] ?? node) }
            if node["jwt"] != nil { error(.conflict, "'dpop' binds a minted token to the proof's key; a literal 'jwt' cannot be bound", at: node["jwt"]!) }
        }
        var callback: String?
        if let callbackNode = node["callback"] { callback = fixtureText(callbackNode, what: "'callback'")?.trimmingCharacters(in: .whitespacesAndNewlines) }
        var expect: Expectation?
        if let expectNode = node["expect"] {
            expect = expectation(expectNode)
        } else {
            error(.missingKey, "a case needs 'expect': at least {valid: true} or {valid: false}", at: node)
        }
        guard diagnostics.count == errorsBefore, let name, let now, let expect else { return nil }
        return PolicyTestCase(name: name, location: node.location, now: now, inputs: inputs, token: token, request: request,
                              callback: callback, dpop: dpop, expect: expect)
    }

    /// A DPoP proof: the file's `dpop` overlaid with the case's, member by member, at `now`;
    /// `token` are the token layers, which say whether the token is bound (`cnf` unwritten).
    private mutating func proof(layers: [YAMLNode], now: Double, token: [YAMLNode]) -> MintedProof? {
        var proof = MintedProof()
        for layer in layers where layer.scalar?.value != .null {
            guard checkKeys(layer, allowed: PolicyTestReader.dpopKeys, what: "'dpop'") else { return nil }
            if let claimsNode = layer["claims"] {
                guard let object = object(claimsNode, what: "'claims'", now: now) else { return nil }
                for member in object.members { proof.claims.set(member.name, member.value) }
            }
            if let headerNode = layer["header"] {
                guard let object = object(headerNode, what: "'header'", now: nil) else { return nil }
                for member in object.members { proof.header.set(member.name, member.value) }
            }
            for (key, flag) in [("corrupt_signature", \MintedProof.corruptSignature), ("replay", \MintedProof.replay)] {
                guard let flagNode = layer[key] else { continue }
                guard case let .bool(value)? = flagNode.scalar?.value else {
                    error(.wrongType, "'\(key)' must be true or false, found \(flagNode.shapeDescription)", at: flagNode)
                    return nil
                }
                proof[keyPath: flag] = value
            }
            if let keyNode = layer["key"] {
                guard let name = string(keyNode, what: "'key'"), ["client", "other"].contains(name) else {
                    error(.invalidValue, "'key' is client (the key the token is bound to, the default) or other (a second client key)", at: keyNode)
                    return nil
                }
                proof.otherKey = name == "other"
            }
            if let schemeNode = layer["scheme"] {
                guard let scheme = string(schemeNode, what: "'scheme'"), ["DPoP", "Bearer"].contains(scheme) else {
                    error(.invalidValue, "'scheme' is DPoP (the default) or Bearer (a bound token sent as a bearer token)", at: schemeNode)
                    return nil
                }
                proof.scheme = scheme
            }
        }
        proof.bindsToken = !token.contains { $0["claims"]?["cnf"] != nil }
        return proof
    }

    /// A minted token: the file's `token` (the base) overlaid with the case's, member by member;
    /// a claim set to `null` is left out of the token.
    private mutating func minted(_ node: YAMLNode?, base: YAMLNode?, now: Double) -> TestToken? {
        if let node {
            guard checkKeys(node, allowed: PolicyTestReader.tokenKeys, what: "'token'") else { return nil }
            if node["claims"] == nil, base?["claims"] == nil {
                error(.missingKey, "'token' needs 'claims' (a literal token is written as jwt: ...)", at: node)
                return nil
            }
        }
        return mintedToken(layers: [base, node].compactMap { $0 }, now: now).map(TestToken.minted)
    }

    /// The token `layers` describe, later layers overlaying earlier ones member by member; an
    /// `embedded` token is layered the same way, claim path by claim path.
    private mutating func mintedToken(layers: [YAMLNode], now: Double) -> MintedToken? {
        var token = MintedToken(claims: JSONObject())
        var embeddedLayers: [(path: String, layers: [YAMLNode])] = []
        for layer in layers {
            if let flagNode = layer["corrupt_signature"] {
                guard case let .bool(flag)? = flagNode.scalar?.value else {
                    error(.wrongType, "'corrupt_signature' must be true or false, found \(flagNode.shapeDescription)", at: flagNode)
                    return nil
                }
                token.corruptSignature = flag
            }
            if let claimsNode = layer["claims"] {
                guard let object = object(claimsNode, what: "'claims'", now: now) else { return nil }
                for member in object.members {
                    token.claims.set(member.name, member.value)
                    // A claim a later layer writes replaces an embedded token an earlier one minted there.
                    embeddedLayers.removeAll { $0.path == member.name || $0.path.hasPrefix(member.name + ".") }
                }
            }
            if let headerNode = layer["header"] {
                guard let object = object(headerNode, what: "'header'", now: nil) else { return nil }
                for member in object.members { token.header.set(member.name, member.value) }
            }
            if let embeddedNode = layer["embedded"] {
                guard let pairs = embeddedNode.pairs else {
                    error(.wrongType, "'embedded' must map claim paths to tokens ({claims, header, ...}), found \(embeddedNode.shapeDescription)", at: embeddedNode)
                    return nil
                }
                for pair in pairs {
                    guard checkKeys(pair.value, allowed: PolicyTestReader.tokenKeys, what: "the embedded token '\(pair.name)'") else { return nil }
                    if let index = embeddedLayers.firstIndex(where: { $0.path == pair.name }) {
                        embeddedLayers[index].layers.append(pair.value)
                    } else {
                        embeddedLayers.append((pair.name, [pair.value]))
                    }
                }
            }
        }
        token.claims = token.claims.withoutNulls
        for (path, layers) in embeddedLayers {
            guard let embedded = mintedToken(layers: layers, now: now) else { return nil }
            token.embedded[path] = embedded
        }
        return token
    }

    private mutating func expectation(_ node: YAMLNode) -> Expectation? {
        guard checkKeys(node, allowed: PolicyTestReader.expectKeys, what: "'expect'") else { return nil }
        guard let validNode = node["valid"] else {
            error(.missingKey, "'expect' needs 'valid': true or false", at: node)
            return nil
        }
        guard case let .bool(valid)? = validNode.scalar?.value else {
            error(.wrongType, "'valid' must be true or false, found \(validNode.shapeDescription)", at: validNode)
            return nil
        }
        var codes: Set<String>?
        if let codesNode = node["codes"] {
            guard let items = codesNode.items else {
                error(.wrongType, "'codes' must be a list of finding codes, found \(codesNode.shapeDescription)", at: codesNode)
                return nil
            }
            codes = []
            for item in items {
                guard let code = string(item, what: "a finding code") else { return nil }
                codes!.insert(code)
            }
            if valid, !codes!.isEmpty {
                error(.conflict, "a valid verdict has no findings; 'codes' must be empty when 'valid' is true", at: codesNode)
                return nil
            }
        }
        var outputs: [String: JSONValue]?
        if let outputsNode = node["outputs"] {
            guard let object = object(outputsNode, what: "'outputs'", now: nil) else { return nil }
            outputs = Dictionary(object.members.map { ($0.name, $0.value) }) { $1 }
        }
        return Expectation(valid: valid, codes: codes, outputs: outputs)
    }

    private mutating func inputs(_ node: YAMLNode) -> [String: JSONValue]? {
        guard let object = object(node, what: "'inputs'", now: nil) else { return nil }
        return Dictionary(object.members.map { ($0.name, $0.value) }) { $1 }
    }

    /// A case's request: `@FILE` used as given, or a mapping laid over the file's request: its
    /// members replace the base's, except `headers` and `body`, which are merged member by
    /// member; a member set to null is left out.
    private mutating func request(_ node: YAMLNode, base: JSONObject?) -> [UInt8]? {
        if node.scalar != nil {
            guard let text = fixtureText(node, what: "'request'") else { return nil }
            return Array(text.utf8)
        }
        guard let overlay = object(node, what: "'request'", now: nil) else { return nil }
        var request = base ?? JSONObject()
        for member in overlay.members {
            if ["headers", "body"].contains(member.name), case var .object(merged)? = request[member.name], case let .object(changes) = member.value {
                for change in changes.members { merged.set(change.name, change.value) }
                request.set(member.name, .object(merged.withoutNulls))
            } else {
                request.set(member.name, member.value)
            }
        }
        return JSONValue.object(request.withoutNulls).serializedBytes()
    }

    /// The file's request, the base of its cases': a mapping, or `@FILE` holding a JSON object.
    private mutating func requestObject(_ node: YAMLNode) -> JSONObject? {
        guard node.scalar != nil else { return object(node, what: "'request'", now: nil) }
        guard let text = fixtureText(node, what: "'request'") else { return nil }
        do {
            return try JSONParser().parseObject(Array(text.utf8), what: "the request")
        } catch {
            self.error(.invalidValue, "the file's request must be a JSON object {method, url, headers, body}: \(error.message)", at: node)
            return nil
        }
    }

    // MARK: - Values

    private mutating func checkKeys(_ node: YAMLNode, allowed: [String], what: String) -> Bool {
        for problem in node.mappingProblems(allowed: allowed, what: what) where !diagnostics.contains(problem) { diagnostics.append(problem) }
        return node.pairs != nil
    }

    private mutating func string(_ node: YAMLNode, what: String) -> String? {
        guard let scalar = node.scalar, case let .string(text) = scalar.value else {
            error(.wrongType, "\(what) must be a string, found \(node.shapeDescription)", at: node)
            return nil
        }
        return text
    }

    /// An instant: unix seconds or RFC 3339, read by the parser of every time the tools read.
    private mutating func time(_ node: YAMLNode, what: String) -> Double? {
        if let text = node.scalar?.text, let time = UnixTime(parsing: text) { return time.seconds }
        error(.invalidValue, "\(what) must be unix seconds or an RFC 3339 time such as 2026-11-21T09:30:00Z, found \(node.shapeDescription)", at: node)
        return nil
    }

    /// A mapping as a JSON object. With `now`, the plain (unquoted) values of time claims may be
    /// written as RFC 3339 or as `now`, `now+1h`, `now-90s`, and become NumericDates; a quoted
    /// string stays a string, for cases about claims of the wrong type.
    private mutating func object(_ node: YAMLNode, what: String, now: Double?) -> JSONObject? {
        guard let pairs = node.pairs else {
            error(.wrongType, "\(what) must be a mapping, found \(node.shapeDescription)", at: node)
            return nil
        }
        var object = JSONObject()
        for pair in pairs {
            let value: JSONValue?
            if let now, PolicyTestReader.timeClaims.contains(pair.name), let scalar = pair.value.scalar, scalar.isPlain, case let .string(text) = scalar.value {
                value = numericDate(text, now: now, at: pair.value)
            } else {
                value = json(pair.value)
            }
            guard let value else { return nil }
            object.set(pair.name, value)
        }
        return object
    }

    private mutating func numericDate(_ text: String, now: Double, at node: YAMLNode) -> JSONValue? {
        let seconds: Double?
        if text == "now" {
            seconds = now
        } else if text.hasPrefix("now+") || text.hasPrefix("now-") {
            seconds = RelativeTime.seconds(String(text.dropFirst(4))).map { text.hasPrefix("now+") ? now + $0 : now - $0 }
        } else {
            seconds = UnixTime.parseRFC3339(text)
        }
        guard let seconds else {
            error(.invalidValue, "'\(node.path.split(separator: ".").last ?? "")' must be an RFC 3339 time, now, or now±DURATION (now+1h, now-90s), found '\(text)'",
                  at: node, hint: "write a number for a literal NumericDate, or quote the value to send it as a string")
            return nil
        }
        return seconds == seconds.rounded() && abs(seconds) < 1e15 ? .number(.integer(Int64(seconds))) : .number(.decimal(seconds))
    }

    /// A YAML value as JSON, scalars by their core-schema type.
    private mutating func json(_ node: YAMLNode) -> JSONValue? {
        do {
            return try node.json()
        } catch {
            self.error(.invalidValue, "'\(error.node.scalar?.text ?? "")' is not a finite number", at: error.node)
            return nil
        }
    }

    /// A string used as given, or the text of `@FILE` read from below the test file's directory.
    private mutating func fixtureText(_ node: YAMLNode, what: String) -> String? {
        guard let text = string(node, what: what) else { return nil }
        guard text.hasPrefix("@") else { return text }
        let path = PolicyPath.joined(PolicyPath.directory(of: file), String(text.dropFirst()))
        if let refusal = roots.admit(path, for: .testFixture) {
            error(refusal.code, refusal.message, at: node, hint: refusal.hint)
            return nil
        }
        guard let handle = FileHandle(forReadingAtPath: path), let data = try? handle.read(upToCount: maxFixtureBytes + 1) else {
            error(.fileUnreadable, "cannot read \(path)", at: node)
            return nil
        }
        try? handle.close()
        guard data.count <= maxFixtureBytes, let content = String(validating: data, as: UTF8.self) else {
            error(.fileUnreadable, "\(path) is larger than \(maxFixtureBytes) bytes or not UTF-8", at: node)
            return nil
        }
        return content
    }
}

/// `1h`, `90s`, `5m`, `2d`: the offsets a test writes after `now+` or `now-`.
enum RelativeTime {
    static func seconds(_ text: String) -> Double? {
        guard let unit = text.last, let count = Double(text.dropLast()), count >= 0, count.isFinite,
              text.dropLast().allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) else { return nil }
        switch unit {
        case "s": return count
        case "m": return count * 60
        case "h": return count * 3600
        case "d": return count * 86400
        default: return nil
        }
    }
}
