package import ArrowIPC
@_spi(JSONWriting) import PolicyJOSE

/// Batch verdicts as Arrow columns (`policy-run batch --output-format arrow`): the members of a
/// verdict line, typed, so that Spark, pandas, Polars or DuckDB take them without parsing JSON.
///
/// Each column is named as the JSON line's member; what is an open JSON object there (a
/// finding's nested `findings`, `outputs`, `trace`, `claims`) stays compact JSON text here.
package struct BatchVerdictColumns: Sendable {
    private static let finding: [ArrowField] = [
        ArrowField("rule", .utf8), ArrowField("code", .utf8), ArrowField("message", .utf8), ArrowField("at", .utf8),
        ArrowField("findings", .utf8, nullable: true),
    ]

    /// The schema of every batch.
    package static let fields: [ArrowField] = [
        ArrowField("line", .int64),
        ArrowField("input", .utf8, nullable: true),
        ArrowField("iss", .utf8, nullable: true),
        ArrowField("kid", .utf8, nullable: true),
        ArrowField("policy", .utf8),
        ArrowField("valid", .bool),
        ArrowField("verified", .bool),
        ArrowField("key_freshness", .utf8, nullable: true),
        ArrowField("key_snapshot", .struct([ArrowField("seen", .utf8), ArrowField("file", .utf8)]), nullable: true),
        ArrowField("findings", .list(ArrowField("item", .struct(finding)))),
        ArrowField("skipped", .list(ArrowField("item", .utf8))),
        ArrowField("outputs", .utf8),
        ArrowField("trace", .utf8, nullable: true),
        ArrowField("claims", .utf8, nullable: true),
    ]

    private var line = ArrowInt64Column()
    private var input = ArrowStringColumn()
    private var issuer = ArrowStringColumn()
    private var kid = ArrowStringColumn()
    private var policy = ArrowStringColumn()
    private var valid = ArrowBoolColumn()
    private var verified = ArrowBoolColumn()
    private var keyFreshness = ArrowStringColumn()
    private var snapshotValidity = ArrowBitmap()
    private var snapshotSeen = ArrowStringColumn()
    private var snapshotFile = ArrowStringColumn()
    private var findings = ArrowListOffsets()
    private var findingRule = ArrowStringColumn()
    private var findingCode = ArrowStringColumn()
    private var findingMessage = ArrowStringColumn()
    private var findingAt = ArrowStringColumn()
    private var findingNested = ArrowStringColumn()
    private var skipped = ArrowListOffsets()
    private var skippedRule = ArrowStringColumn()
    private var outputs = ArrowStringColumn()
    private var trace = ArrowStringColumn()
    private var claims = ArrowStringColumn()

    package init() {}

    /// The rows appended since the last `take()`.
    package var count: Int { line.count }

    /// The text the rows hold, in every string column together; asked before every row, so
    /// summed in place rather than over an array of the columns.
    package var textBytes: Int {
        input.byteCount + issuer.byteCount + kid.byteCount + policy.byteCount + keyFreshness.byteCount + snapshotSeen.byteCount
            + snapshotFile.byteCount + findingRule.byteCount + findingCode.byteCount + findingMessage.byteCount + findingAt.byteCount
            + findingNested.byteCount + skippedRule.byteCount + outputs.byteCount + trace.byteCount + claims.byteCount
    }

    /// Text past which a record batch is ended before the next row: Arrow's offsets are 32-bit,
    /// so a column must stay under 2 GiB, and one row adds at most a line's claims
    /// (`--max-line-bytes`, at most 1 GiB) and what rules write.
    package static let recordBatchBytes = 1 << 29

    /// Appends one verdict as a row.
    package mutating func append(_ record: BatchVerdict) {
        let verdict = record.verdict
        line.append(Int64(record.line))
        input.append(record.input)
        issuer.append(record.issuer)
        kid.append(record.kid)
        policy.append(verdict.policy)
        valid.append(verdict.valid)
        verified.append(verdict.verified)
        keyFreshness.append(verdict.keyFreshness?.rawValue)
        // A struct's children hold a value for every row, null rows included.
        snapshotValidity.append(verdict.keySnapshot != nil)
        snapshotSeen.append(verdict.keySnapshot?.seen.iso8601 ?? "")
        snapshotFile.append(verdict.keySnapshot?.file ?? "")
        for finding in verdict.findings {
            findingRule.append(finding.rule)
            findingCode.append(finding.code.rawValue)
            findingMessage.append(finding.message)
            findingAt.append(finding.at)
            if finding.nested.isEmpty {
                findingNested.appendNull()
            } else {
                findingNested.append(utf8: Self.json { Finding.write(finding.nested, to: &$0) })
            }
        }
        findings.endRow(itemsSoFar: findingRule.count)
        for rule in verdict.skipped { skippedRule.append(rule) }
        skipped.endRow(itemsSoFar: skippedRule.count)
        if verdict.outputs.isEmpty {
            outputs.append(utf8: "{}".utf8)
        } else {
            outputs.append(utf8: Self.json { verdict.writeOutputs(to: &$0) })
        }
        if let steps = verdict.trace {
            trace.append(utf8: Self.json { steps.write(to: &$0) })
        } else {
            trace.appendNull()
        }
        if let object = record.claims {
            claims.append(utf8: JSONValue.object(object).serializedBytes())
        } else {
            claims.appendNull()
        }
    }

    private static func json(_ write: (inout JSONWriter) -> Void) -> [UInt8] {
        var writer = JSONWriter(capacity: 64)
        write(&writer)
        return writer.bytes
    }

    /// The rows so far as one array per field of `fields`; the columns start over.
    package mutating func take() -> [ArrowArray] {
        let snapshot = ArrowArray.structure(of: [snapshotSeen.take(), snapshotFile.take()], validity: snapshotValidity)
        snapshotValidity.removeAll()
        let findingItems = ArrowArray.structure(of: [findingRule.take(), findingCode.take(), findingMessage.take(), findingAt.take(),
                                                     findingNested.take()])
        return [line.take(), input.take(), issuer.take(), kid.take(), policy.take(), valid.take(), verified.take(), keyFreshness.take(),
                snapshot, findings.take(child: findingItems), skipped.take(child: skippedRule.take()), outputs.take(), trace.take(), claims.take()]
    }
}

extension BatchVerdictColumns {
    private static let encoder = ArrowStreamEncoder(fields: fields)

    /// What opens a stream of verdicts: its schema message.
    package static let streamStart = encoder.schemaMessage()
    /// What ends it.
    package static let streamEnd = ArrowStreamEncoder.endOfStream

    /// The rows so far as one record batch, appended to `output`; nothing when there are none.
    package mutating func writeRecordBatch(to output: inout [UInt8]) {
        guard count > 0 else { return }
        let rows = count
        Self.encoder.appendRecordBatch(length: rows, columns: take(), to: &output)
    }

    /// `verdicts` as record batches appended to `output`: one, unless their text passes
    /// `byteLimit`, when a batch ends before the row that would follow.
    package static func writeRecordBatches(_ verdicts: some Sequence<BatchVerdict>, byteLimit: Int = recordBatchBytes, to output: inout [UInt8]) {
        var columns = BatchVerdictColumns()
        for verdict in verdicts {
            if columns.textBytes >= byteLimit { columns.writeRecordBatch(to: &output) }
            columns.append(verdict)
        }
        columns.writeRecordBatch(to: &output)
    }
}
