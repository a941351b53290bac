internal import Foundation
@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) package import PolicyJOSE
internal import PolicyEngine
internal import PolicyAuthoring
internal import Rules

/// What the playground page asks of the engine, as JSON in and JSON out: compile the policy being
/// edited, evaluate a subject under it with its trace, run its test file's cases against it.
///
/// The text typed into the page is untrusted like any policy file: it is compiled as the file
/// it stands for (`DIR/NAME.yaml`), so it reads bases and key files from the directory only, its
/// key URLs meet the same stance, and the loader's bounds on size and nodes apply. Nothing here
/// writes to disk; `PlaygroundWorkspace.save` does, when the page asks.
package struct Playground: Sendable {
    /// The directory the page edits.
    package let workspace: PlaygroundWorkspace
    /// Remote key sets, fetched once for every evaluation of the session.
    package let keyCache: JWKSCache
    /// Runs test files, with stand-in keys made once for the session.
    private let runner: PolicyTestRunner

    /// A playground of `workspace`.
    ///
    /// - Throws: `JOSEError` when the test runner's stand-in keys cannot be made.
    package init(workspace: PlaygroundWorkspace, keyCache: JWKSCache = JWKSCache()) throws(JOSEError) {
        self.workspace = workspace
        self.keyCache = keyCache
        var runner = try PolicyTestRunner(keyCache: keyCache)
        runner.fileRoots = FileRoots([workspace.directory])
        self.runner = runner
    }

    /// A call the page made that cannot be answered: a code and a message the page shows.
    package struct Refusal: Error, Sendable {
        package let code: String
        package let message: String

        /// A refusal with `code` and `message`.
        package init(code: String, message: String) {
            self.code = code
            self.message = message
        }

        /// The refusal of what the directory refused.
        init(_ failure: PlaygroundWorkspace.Failure) {
            self.init(code: failure.code, message: failure.message)
        }

        /// `{"error": {"code", "message"}}`, the body of a refused call.
        package var json: JSONValue { .object(JSONObject(["error": problem])) }

        /// `{"code", "message"}`.
        var problem: JSONValue { .object(JSONObject(["code": .string(code), "message": .string(message)])) }
    }

    /// `{name, text}`: the policy's name (its file's, or for a new policy the name it declares)
    /// and its text.
    struct Edited {
        let name: String
        let text: String
        let path: String

        init(_ body: JSONObject, workspace: PlaygroundWorkspace) throws(Refusal) {
            guard let name = body["name"]?.stringValue, let text = body["text"]?.stringValue else {
                throw Refusal(code: "bad_call", message: "the call needs \"name\" and \"text\" strings")
            }
            do {
                path = try workspace.policyPath(name)
            } catch {
                throw Refusal(error)
            }
            guard text.utf8.count <= workspace.maxFileBytes else {
                throw Refusal(code: "too_large", message: "a policy is at most \(workspace.maxFileBytes) bytes")
            }
            self.name = name
            self.text = text
        }
    }

    /// `GET /api/policies`: `{directory, policies: [{name, tests}]}`.
    package func policies() -> JSONValue {
        .object(JSONObject([
            "directory": .string(workspace.directory),
            "policies": .array(workspace.entries().map { .object(JSONObject(["name": .string($0.name), "tests": .bool($0.hasTests)])) }),
        ]))
    }

    /// `GET /api/policies/NAME`: `{name, text, tests}` (`tests` the test file's text, or null).
    package func policy(_ name: String) throws(Refusal) -> JSONValue {
        do {
            let (text, tests) = try workspace.read(name)
            return .object(JSONObject(["name": .string(name), "text": .string(text), "tests": tests.map(JSONValue.string) ?? .null]))
        } catch {
            throw Refusal(error)
        }
    }

    /// `POST /api/compile {name, text}`: `{policy, subjects, inputs, diagnostics}`, `policy`
    /// null when the text does not compile.
    package func compile(_ body: JSONObject) throws(Refusal) -> JSONValue {
        let edited = try Edited(body, workspace: workspace)
        switch compiled(edited) {
        case let .success(policy):
            return .object(JSONObject([
                "policy": .string(policy.name),
                "subjects": .array(policy.subjects.map { .string($0) }),
                "inputs": .array(policy.inputs.map { input in
                    .object(JSONObject(["name": .string(input.name), "required": .bool(input.required), "default": input.defaultValue ?? .null]))
                }),
                "diagnostics": .array(policy.warnings.map { Self.json($0, editing: edited.path) }),
            ]))
        case let .failure(diagnostics):
            return .object(JSONObject(["policy": .null, "diagnostics": .array(diagnostics.sorted.map { Self.json($0, editing: edited.path) })]))
        }
    }

    /// `POST /api/evaluate {name, text, kind, subject, now, inputs}`: `{diagnostics, decoded,
    /// verdict, problem}`; `verdict` null (and `diagnostics` saying why) when the policy does not
    /// compile, or (and `problem` saying why) when the time, the inputs or the subject cannot be
    /// judged; `decoded` null when the subject is not a token.
    ///
    /// `kind` is `token` (a compact or JSON-serialized token), `request` (its JSON document) or
    /// `callback` (the redirect URL); `now` unix seconds or RFC 3339, empty for the clock;
    /// `inputs` a JSON object as text. What the user typed is answered, not refused: only a call
    /// the page would never make is a `Refusal`.
    package func evaluate(_ body: JSONObject) async throws(Refusal) -> JSONValue {
        let edited = try Edited(body, workspace: workspace)
        do throws(Refusal) {
            return try await evaluate(edited, body)
        } catch where error.code != "bad_call" {
            return .object(JSONObject(["diagnostics": .array([]), "decoded": .null, "verdict": .null, "problem": error.problem]))
        }
    }

    private func evaluate(_ edited: Edited, _ body: JSONObject) async throws(Refusal) -> JSONValue {
        let kind = body["kind"]?.stringValue ?? "token"
        let subject = (body["subject"]?.stringValue ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let nowText = (body["now"]?.stringValue ?? "").trimmingCharacters(in: .whitespaces)
        let inputsText = (body["inputs"]?.stringValue ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        var now: UnixTime?
        if !nowText.isEmpty {
            guard let parsed = UnixTime(parsing: nowText) else {
                throw Refusal(code: "bad_time", message: "the time is unix seconds or RFC 3339 (2026-11-21T09:30:00Z), got '\(InertText.escaped(String(nowText.prefix(60))))'")
            }
            now = parsed
        }
        var inputs: [String: JSONValue] = [:]
        if !inputsText.isEmpty {
            do {
                let object = try JSONParser().parseObject(Array(inputsText.utf8), what: "the inputs")
                for member in object.members { inputs[member.name] = member.value }
            } catch {
                throw Refusal(code: "bad_inputs", message: "the inputs are a JSON object ({\"nonce\": \"n-1\"}): \(error.description)")
            }
        }
        var token: String?
        var subjects: [any PolicySubject] = []
        switch kind {
        case "token": token = subject.isEmpty ? nil : subject
        case "request": subjects.append(RequestSubject(json: Array(subject.utf8)))
        case "callback": subjects.append(CallbackSubject(url: subject))
        default: throw Refusal(code: "bad_call", message: "kind is token, request or callback")
        }
        // Decoded whether or not the policy compiles: the token is the token.
        let decoded = token.map(Self.decoded) ?? .null
        let policy: Policy
        switch compiled(edited) {
        case let .success(compiled): policy = compiled
        case let .failure(diagnostics):
            return .object(JSONObject(["diagnostics": .array(diagnostics.sorted.map { Self.json($0, editing: edited.path) }),
                                       "decoded": decoded, "verdict": .null, "problem": .null]))
        }
        // Each evaluation remembers its own one-time values: typing the same token again is not a replay.
        let request = EvaluationRequest(token: token, subjects: subjects, inputs: inputs, now: now, trace: true,
                                        clockSource: now == nil ? nil : "the page's time", signatureCache: nil, replayStore: MemoryReplayStore())
        let verdict: Verdict
        do {
            verdict = try await policy.evaluate(request).verdict
        } catch {
            return .object(JSONObject(["diagnostics": .array([]), "decoded": decoded, "verdict": .null,
                                       "problem": Refusal(code: error.codeName, message: error.message).problem]))
        }
        return .object(JSONObject(["diagnostics": .array([]), "decoded": decoded, "verdict": verdict.json, "problem": .null]))
    }

    /// `POST /api/tests {name, text}`: the cases of `NAME.test.yaml` run against the text:
    /// `{file, problems, cases: [{name, line, outcome, differences, verdict, now, inputs, token, request, callback}]}`;
    /// `file` null when the policy has no test file.
    package func runTests(_ body: JSONObject) async throws(Refusal) -> JSONValue {
        let edited = try Edited(body, workspace: workspace)
        let path: String?
        do {
            path = try workspace.testPath(edited.name)
        } catch {
            throw Refusal(error)
        }
        guard let path else { return .object(JSONObject(["file": .null, "problems": .array([]), "cases": .array([])])) }
        // Read once: the runner runs these cases, and the page gets their subjects from them.
        let file: PolicyTestFile
        do {
            file = try runner.reader.read(file: path)
        } catch {
            return .object(JSONObject(["file": .string(path), "problems": .array(error.sorted.map { Self.json($0, editing: edited.path) }), "cases": .array([])]))
        }
        let report = await runner.run(file, policyText: edited.text)
        let cases = file.cases
        return .object(JSONObject([
            "file": .string(path),
            "problems": .array(report.problems.map { Self.json($0, editing: edited.path) }),
            "cases": .array(report.results.map { result in
                var object = JSONObject(["name": .string(result.name), "line": .number(.integer(Int64(result.location.line)))])
                switch result.outcome {
                case .passed: object.set("outcome", .string("pass"))
                case let .failed(differences):
                    object.set("outcome", .string("fail"))
                    object.set("differences", .array(differences.map { .string($0) }))
                case let .error(message):
                    object.set("outcome", .string("error"))
                    object.set("differences", .array([.string(message)]))
                }
                if let verdict = result.verdict { object.set("verdict", verdict.json) }
                // What the page needs to judge the case itself: its time, inputs and a subject it can paste.
                if let testCase = cases.first(where: { $0.name == result.name && $0.location == result.location }) {
                    object.set("now", .string(UnixTime.iso8601(testCase.now)))
                    var inputs = JSONObject()
                    for name in testCase.inputs.keys.sorted() { inputs.set(name, testCase.inputs[name]!) }
                    object.set("inputs", .object(inputs))
                    if case let .literal(text)? = testCase.token { object.set("token", .string(text)) }
                    if let request = testCase.request { object.set("request", .string(String(decoding: request, as: UTF8.self))) }
                    if let callback = testCase.callback { object.set("callback", .string(callback)) }
                }
                return .object(object)
            }),
        ]))
    }

    /// `POST /api/save {name, text, new}`: writes the text as `DIR/NAME.yaml`; `{saved: PATH}`.
    /// With `new` true (a policy the page started) a file already there is not replaced.
    package func save(_ body: JSONObject) throws(Refusal) -> JSONValue {
        let edited = try Edited(body, workspace: workspace)
        guard body["new"] == nil || body["new"]?.boolValue != nil else {
            throw Refusal(code: "bad_call", message: "\"new\" is true or false")
        }
        do {
            let path = try workspace.save(edited.name, text: edited.text, replacing: body["new"]?.boolValue != true)
            return .object(JSONObject(["saved": .string(path)]))
        } catch {
            throw Refusal(error)
        }
    }

    private func compiled(_ edited: Edited) -> Result<Policy, PolicyDiagnostics> {
        do {
            return .success(try Policy.load(text: edited.text, file: edited.path, keyCache: keyCache, fileRoots: FileRoots([workspace.directory])))
        } catch {
            return .failure(error)
        }
    }

    /// A diagnostic for the page: where it is (`in_editor` when in the text being edited, not a
    /// base it extends), what, and the hint.
    static func json(_ diagnostic: Diagnostic, editing path: String) -> JSONValue {
        var object = JSONObject([
            "severity": .string(diagnostic.severity.rawValue), "code": .string(diagnostic.code.rawValue),
            "message": .string(diagnostic.message), "file": .string(diagnostic.location.file),
            "line": .number(.integer(Int64(diagnostic.location.line))), "column": .number(.integer(Int64(diagnostic.location.column))),
            "path": .string(diagnostic.path), "in_editor": .bool(diagnostic.location.file == path),
        ])
        if let hint = diagnostic.hint { object.set("hint", .string(hint)) }
        return .object(object)
    }

    /// The token as `decode` shows it, with the calendar date of each time claim; an `error`
    /// when it does not decode.
    static func decoded(_ token: String) -> JSONValue {
        do {
            let view = try TokenView(token)
            var dates = JSONObject()
            if case let .object(claims)? = view.claims {
                for member in claims.members {
                    if let note = TokenView.dateNote(member.name, member.value) { dates.set(member.name, .string(note)) }
                }
            }
            return .object(JSONObject(["header": .object(view.header), "claims": view.claims ?? .null, "dates": .object(dates),
                                       "summary": .string(view.description)]))
        } catch {
            return .object(JSONObject(["error": .string("\(error)")]))
        }
    }
}
