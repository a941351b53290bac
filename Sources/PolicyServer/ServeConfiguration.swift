internal import Foundation
@_spi(RuleAuthoring) internal import PolicyEngine
@_spi(RuleAuthoring) public import PolicyJOSE
@_spi(RuleAuthoring) public import PolicyRuntime
internal import PolicyHTTP
internal import Rules

/// A `serve.yaml` file (docs/serve.md): where to listen, which policy directory, limits,
/// decision logs, reload, and forward-auth routes. Read with the policy loader (strict YAML,
/// bounded size) and checked like a policy: every problem located at `file:line:column`.
public struct ServeConfiguration: Sendable {
    /// A forward-auth route: requests matching `host` and `pathPrefix` are judged by `policy`.
    public struct Route: Sendable {
        /// The host the original request named, normalised as `RequestHost` normalises the
        /// request's (lower case, no trailing dot), any port aside; nil matches any.
        public var host: String?
        /// A prefix of the original request's normalised path (`IncomingRequest.routingPath`);
        /// nil matches any. One that ends in `/` also takes the path without it (`/admin/`
        /// takes `/admin`, which most servers answer, or redirect, as the same place).
        public var pathPrefix: String?
        /// Whether `pathPrefix` is compared in any ASCII case, for a server behind that matches
        /// paths so (ASP.NET Core, IIS, Express by default).
        public var ignoreCase = false
        /// The policy's name.
        public var policy: String
        /// Inputs: from a header of the original request, or a constant.
        public var inputs: [String: InputSource] = [:]
        /// Response headers for outputs, by output name: a route that names outputs sends
        /// exactly those, under these names; nil (no `outputs:`) sends every output as
        /// `X-Auth-<Name>`.
        public var outputHeaders: [String: String]?
        /// Where the route is written.
        public var location: SourceLocation

        /// A route to `policy` for requests matching `host` and `pathPrefix` (nil matches any).
        public init(host: String? = nil, pathPrefix: String? = nil, policy: String, inputs: [String: InputSource] = [:],
                    outputHeaders: [String: String]? = nil, location: SourceLocation) {
            self.host = host
            self.pathPrefix = pathPrefix
            self.policy = policy
            self.inputs = inputs
            self.outputHeaders = outputHeaders
            self.location = location
        }

        /// Whether the route takes a request to `host` at the normalised `path`; both are
        /// compared as code points.
        func matches(host requestHost: RequestHost?, path: String) -> Bool {
            if let host, requestHost.map({ $0.name.utf8.elementsEqual(host.utf8) }) != true { return false }
            guard let pathPrefix else { return true }
            let fold: (UInt8) -> UInt8 = ignoreCase ? { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 } : { $0 }
            let (path, prefix) = (path.utf8.map(fold), pathPrefix.utf8.map(fold))
            return path.starts(with: prefix) || (prefix.count > 1 && prefix.last == UInt8(ascii: "/") && path == prefix.dropLast())
        }
    }

    /// Where a route's input comes from.
    public enum InputSource: Sendable, Equatable {
        /// A header of the original request, sent once. Required unless `optional`: a client
        /// that leaves out a header it controls must not thereby skip the rule that reads it.
        case header(String, optional: Bool)
        case value(JSONValue)
    }

    /// The configuration file's path, as given.
    public var file: String
    /// The policy directory, resolved against the configuration file's directory.
    public var policies: String
    /// Where to listen, the limits and the routes: the server's own configuration.
    public var server = PolicyServer.Configuration()
    /// Decision logs.
    public var decisionLogLevel = DecisionLog.Level.none
    /// Where decision logs go; nil is standard output.
    public var decisionLogFile: String?
    /// The share of valid decisions logged.
    public var sampleValid = 1.0
    /// The claims and request fields a `data` line adds.
    public var decisionLogFields = DecisionLog.Fields()
    /// How often the policy directory is checked for changes; nil: never (SIGHUP still reloads).
    public var watchEvery: Duration? = .seconds(1)

    /// Where one-time values (DPoP proofs' `jti`) are recorded: in memory by default.
    public var replayStore = ReplayStoreSetting.memory(capacity: 1_000_000)

    static let keys = ["listen", "policies", "limits", "decision_log", "watch", "drain", "signature_cache", "replay_store", "routes"]

    /// A duration as the file and the command line write it: `30`, `30s` or `2m`.
    public static func duration(_ text: String) -> Duration? {
        ConfigurationReading.seconds(text).map { .seconds($0) }
    }

    /// Reads and checks the file at `path`.
    ///
    /// - Throws: `PolicyDiagnostics` with every problem of the file, located.
    package init(file path: String, loader: YAMLLoader = YAMLLoader()) throws(PolicyDiagnostics) {
        let (root, _) = try loader.load(file: path)
        var reading = ConfigurationReading()
        file = path
        policies = ""
        guard reading.mapping(root, allowed: Self.keys, what: "a serve configuration") != nil else { throw PolicyDiagnostics(reading.diagnostics) }
        // A path written in the file is relative to the file's directory.
        func resolved(_ written: String) -> String {
            let directory = PolicyPath.directory(of: path)
            return written.hasPrefix("/") ? written : PolicyPath.joined(directory.isEmpty ? "." : directory, written)
        }
        if let node = root["listen"], let text = reading.string(node, what: "'listen'"), !server.listen(on: text) {
            reading.error(.invalidValue, "'listen' is HOST:PORT, found '\(text)'", at: node)
        }
        if let node = root["policies"], let directory = reading.string(node, what: "'policies'") {
            policies = resolved(directory)
        } else if root["policies"] == nil {
            reading.error(.missingKey, "a serve configuration needs 'policies': the directory of policies to serve", at: root)
        }
        if let node = root["limits"] {
            reading.limits(node, into: &server)
        }
        if let node = root["decision_log"],
           reading.mapping(node, allowed: ["level", "file", "sample_valid", "claims", "request_fields"], what: "'decision_log'") != nil {
            if let value = node["claims"] { decisionLogFields.claims = reading.strings(value, what: "'claims'") }
            if let value = node["request_fields"] {
                decisionLogFields.request = reading.strings(value, what: "'request_fields'").filter { field in
                    guard let problem = DecisionLog.Fields.problem(requestField: field) else { return true }
                    reading.error(.invalidValue, problem, at: value.items?.first { $0.scalar?.text == field } ?? value)
                    return false
                }
            }
            if let value = node["level"], let text = reading.string(value, what: "'level'") {
                if let level = DecisionLog.Level(rawValue: text) { decisionLogLevel = level } else {
                    reading.error(.invalidValue, "'level' is none, timing or data, found '\(text)'", at: value)
                }
            }
            if let value = node["file"], let text = reading.string(value, what: "'file'") {
                decisionLogFile = resolved(text)
            }
            if let value = node["sample_valid"] {
                let number: Double? = switch value.scalar?.value {
                case let .integer(integer)?: Double(integer)
                case let .number(double)?: double
                default: nil
                }
                if let number, (0...1).contains(number) { sampleValid = number } else {
                    reading.error(.invalidValue, "'sample_valid' is a share from 0 to 1", at: value)
                }
            }
        }
        if let node = root["watch"] {
            if case .bool(false)? = node.scalar?.value {
                watchEvery = nil
            } else if let text = node.scalar?.text, let seconds = ConfigurationReading.seconds(text), seconds >= 1 {
                watchEvery = .seconds(seconds)
            } else {
                reading.error(.invalidValue, "'watch' is false or a duration of at least 1s (1s, 5s, 1m)", at: node)
            }
        }
        if let node = root["drain"] {
            if let text = node.scalar?.text, let seconds = ConfigurationReading.seconds(text), (0...300).contains(seconds) {
                server.drain = .seconds(seconds)
            } else {
                reading.error(.invalidValue, "'drain' is a duration from 0s to 5m (0 stops at once on SIGTERM)", at: node)
            }
        }
        if let node = root["signature_cache"] {
            if let text = node.scalar?.text {
                do {
                    server.signatureCacheBytes = try ByteSize.bytes(text, in: SignatureCache.settableSizes)
                } catch {
                    reading.error(.invalidValue, "'signature_cache': \(error)", at: node)
                }
            } else {
                reading.error(.wrongType, "'signature_cache' is \(ByteSize.syntax), found \(node.shapeDescription)", at: node)
            }
        }
        if let node = root["replay_store"], let setting = reading.replayStore(node) {
            replayStore = setting
        }
        if let node = root["routes"] {
            if let items = node.items {
                server.routes = items.compactMap { reading.route($0) }
            } else {
                reading.error(.wrongType, "'routes' is a list of routes", at: node)
            }
        }
        guard reading.diagnostics.isEmpty else { throw PolicyDiagnostics(reading.diagnostics) }
    }

    /// Checks that every route names a served policy, whose inputs it can supply (errors), and
    /// warns for every input read from a request header, which the proxy must set or clear.
    public func problems(with policies: PolicySet) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        for route in server.routes {
            guard let policy = policies.policies[route.policy] else {
                problems.append(Diagnostic(.error, .baseMissing, "the route names policy '\(route.policy)', which \(self.policies) does not hold",
                                           at: route.location, hint: "serve has \(policies.policies.keys.sorted().joined(separator: ", "))"))
                continue
            }
            // A required input no route supplies would refuse every call (400 missing_input).
            for input in policy.inputs where input.required && input.defaultValue == nil {
                switch route.inputs[input.name] {
                case nil:
                    problems.append(Diagnostic(.error, .missingKey, "policy '\(route.policy)' requires the input '\(input.name)', which the route does not supply",
                                               at: route.location, hint: "add inputs: {\(input.name): {value: VALUE}} (or {header: NAME} that the proxy sets)"))
                case .header(_, optional: true)?:
                    problems.append(Diagnostic(.error, .conflict, "policy '\(route.policy)' requires the input '\(input.name)'; the route may not read it as optional",
                                               at: route.location))
                default:
                    break
                }
            }
            for name in (route.outputHeaders ?? [:]).keys.sorted() where !policy.outputs.contains(where: { $0.name == name }) {
                problems.append(Diagnostic(.error, .invalidValue, "policy '\(route.policy)' has no output '\(name)' to send as a header", at: route.location,
                                           hint: "its outputs are \(policy.outputs.map(\.name).joined(separator: ", "))"))
            }
            for name in route.inputs.keys.sorted() {
                guard policy.inputs.contains(where: { $0.name == name }) else {
                    problems.append(Diagnostic(.error, .undeclaredInput, "policy '\(route.policy)' declares no input '\(name)'", at: route.location))
                    continue
                }
                // nginx auth_request and Caddy forward_auth pass the client's headers on: a
                // client that writes this header chooses the policy's requirement.
                if case let .header(header, _)? = route.inputs[name] {
                    problems.append(Diagnostic(.warning, .insecureSetting,
                                               "input '\(name)' comes from the request header \(header), which the client chooses unless the proxy sets or clears it",
                                               at: route.location,
                                               hint: "make the proxy set it (nginx: proxy_set_header \(header) \"VALUE\"; Caddy: header_up \(header) VALUE), or write {value: VALUE}"))
                }
            }
        }
        return problems
    }
}

/// One pass over a configuration's YAML, collecting located diagnostics.
struct ConfigurationReading {
    var diagnostics: [Diagnostic] = []

    mutating func error(_ code: DiagnosticCode, _ message: String, at node: YAMLNode, hint: String? = nil) {
        diagnostics.append(Diagnostic(.error, code, message, at: node.location, path: node.path, hint: hint))
    }

    mutating func mapping(_ node: YAMLNode, allowed: [String], what: String) -> [YAMLPair]? {
        diagnostics += node.mappingProblems(allowed: allowed, what: what)
        return node.pairs
    }

    /// A list of strings, or [] (reported) when the node is not one.
    mutating func strings(_ node: YAMLNode, what: String) -> [String] {
        guard let items = node.items else {
            error(.wrongType, "\(what) is a list of names, found \(node.shapeDescription)", at: node)
            return []
        }
        return items.compactMap { string($0, what: "an entry of \(what)") }
    }

    mutating func string(_ node: YAMLNode, what: String) -> String? {
        guard case let .string(text)? = node.scalar?.value else {
            error(.wrongType, "\(what) is a string, found \(node.shapeDescription)", at: node)
            return nil
        }
        return text
    }

    /// Reads `limits:`: sizes as whole numbers within bounds, times as durations.
    mutating func limits(_ node: YAMLNode, into server: inout PolicyServer.Configuration) {
        guard mapping(node, allowed: ["max_body_bytes", "max_header_bytes", "max_header_fields", "max_connections", "idle_timeout", "request_timeout"],
                      what: "'limits'") != nil else { return }
        if let value = count(node["max_body_bytes"], in: 1...(64 << 20), what: "'max_body_bytes' is a number of bytes") { server.maxBodyBytes = value }
        if let value = count(node["max_header_bytes"], in: 1024...(1 << 20), what: "'max_header_bytes' is a number of bytes") { server.maxHeaderBytes = value }
        if let value = count(node["max_header_fields"], in: 8...10_000, what: "'max_header_fields' is a number of fields") { server.maxHeaderFields = value }
        if let value = count(node["max_connections"], in: 1...1_000_000, what: "'max_connections' is a number of connections") { server.maxConnections = value }
        if let value = duration(node["idle_timeout"], in: 1...3600, what: "'idle_timeout'") { server.idleTimeout = .seconds(value) }
        if let value = duration(node["request_timeout"], in: 1...3600, what: "'request_timeout'") { server.requestTimeout = .seconds(value) }
    }

    /// A whole number within `range`, or nil (reported) when the node is present and is not one.
    mutating func count(_ node: YAMLNode?, in range: ClosedRange<Int>, what: String) -> Int? {
        guard let node else { return nil }
        if case let .integer(value)? = node.scalar?.value, let value = Int(exactly: value), range.contains(value) { return value }
        error(.invalidValue, "\(what) from \(range.lowerBound) to \(range.upperBound)", at: node)
        return nil
    }

    /// A duration written `30`, `30s` or `2m`, within `range` seconds, or nil (reported).
    mutating func duration(_ node: YAMLNode?, in range: ClosedRange<Int64>, what: String) -> Int64? {
        guard let node else { return nil }
        if let text = node.scalar?.text, let seconds = Self.seconds(text), range.contains(seconds) { return seconds }
        error(.invalidValue, "\(what) is a duration from \(range.lowerBound)s to \(range.upperBound)s (10s, 1m)", at: node)
        return nil
    }

    /// Seconds written `30`, `30s` or `2m`.
    static func seconds(_ text: String) -> Int64? {
        if let whole = Int64(text) { return whole }
        guard let unit = text.last, let amount = Int64(text.dropLast()) else { return nil }
        switch unit {
        case "s": return amount
        case "m": return amount.multipliedReportingOverflow(by: 60).overflow ? nil : amount * 60
        default: return nil
        }
    }

    mutating func route(_ node: YAMLNode) -> ServeConfiguration.Route? {
        guard mapping(node, allowed: ["match", "policy", "inputs", "outputs"], what: "a route") != nil else { return nil }
        guard let policyNode = node["policy"] else {
            error(.missingKey, "a route needs 'policy': the name of the policy that judges it", at: node)
            return nil
        }
        guard let policy = string(policyNode, what: "'policy'") else { return nil }
        var route = ServeConfiguration.Route(policy: policy, location: node.location)
        if let match = node["match"], mapping(match, allowed: ["host", "path_prefix", "ignore_case"], what: "'match'") != nil {
            if let flag = match["ignore_case"] {
                if case let .bool(value)? = flag.scalar?.value { route.ignoreCase = value } else { error(.wrongType, "'ignore_case' is true or false", at: flag) }
            }
            if let hostNode = match["host"], let text = string(hostNode, what: "'host'") {
                if let host = RequestHost(text), host.port == nil {
                    route.host = host.name
                } else {
                    error(.invalidValue, "'host' is a host name or address without a port, found '\(InertText.escaped(text))'", at: hostNode)
                }
            }
            if let prefixNode = match["path_prefix"], let prefix = string(prefixNode, what: "'path_prefix'") {
                // Routing compares the normalised path, so only a normalised prefix can match.
                switch RequestTarget.parse(prefix) {
                case let .failure(problem):
                    error(.invalidValue, "'path_prefix': \(problem.message.replacingOccurrences(of: "the request URL", with: "the prefix"))", at: prefixNode)
                case let .success(target):
                    if prefix.hasPrefix("/"), !prefix.contains("?"), case let .success(normalized) = target.normalizedPath(.standard), normalized == prefix {
                        route.pathPrefix = prefix
                    } else {
                        error(.invalidValue, "'path_prefix' is a normalised path: it starts with '/', has no '.', '..', '//', escapes, ';' or query",
                              at: prefixNode)
                    }
                }
            }
        }
        if let inputs = node["inputs"] {
            guard let pairs = inputs.pairs else {
                error(.wrongType, "'inputs' maps input names to {header: NAME} or {value: VALUE}", at: inputs)
                return nil
            }
            for pair in pairs {
                guard mapping(pair.value, allowed: ["header", "optional", "value"], what: "input '\(pair.name)'") != nil else { continue }
                if let header = pair.value["header"], let name = string(header, what: "'header'") {
                    guard HTTPToken.isToken(name) else {
                        error(.invalidValue, "'\(InertText.escaped(name))' is not a header name (letters, digits and !#$%&'*+-.^_`|~)", at: header)
                        continue
                    }
                    var optional = false
                    if let node = pair.value["optional"] {
                        guard case let .bool(flag)? = node.scalar?.value else {
                            error(.wrongType, "'optional' is true or false", at: node)
                            continue
                        }
                        optional = flag
                    }
                    route.inputs[pair.name] = .header(name, optional: optional)
                } else if pair.value["optional"] != nil {
                    error(.invalidValue, "'optional' applies to an input read from a header", at: pair.value)
                } else if let value = pair.value["value"] {
                    if let json = try? value.json() { route.inputs[pair.name] = .value(json) }
                } else {
                    error(.missingKey, "input '\(pair.name)' needs 'header' (a header of the original request) or 'value'", at: pair.value)
                }
            }
        }
        if let outputs = node["outputs"] {
            guard let pairs = outputs.pairs else {
                error(.wrongType, "'outputs' maps output names to response header names", at: outputs)
                return nil
            }
            route.outputHeaders = [:]
            for pair in pairs {
                guard let header = string(pair.value, what: "the header of output '\(pair.name)'") else { continue }
                guard HTTPToken.isToken(header) else {
                    error(.invalidValue, "'\(InertText.escaped(header))' is not a header name (letters, digits and !#$%&'*+-.^_`|~)", at: pair.value)
                    continue
                }
                route.outputHeaders?[pair.name] = header
            }
        }
        return route
    }
}

