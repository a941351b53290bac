@_spi(RuleAuthoring) import PolicyJOSE

/// The finding codes of batch records.
extension FindingCode {
    /// A log record that cannot be read: not UTF-8, binary, not a JSON object, over the line cap.
    package static let recordMalformed = FindingCode("record_malformed", .undecided)
    /// A JSON-lines record without its token field (or one that is not a string), or a
    /// mapped input field.
    package static let recordFieldMissing = FindingCode("record_field_missing", .undecided)
    /// A record's time field is neither unix seconds nor RFC 3339.
    package static let recordTimeInvalid = FindingCode("record_time_invalid", .undecided)

    /// `--detect-replay`: the token was presented before in the log, within its lifetime.
    package static let tokenReplayed = FindingCode("token_replayed", .mismatch)

    /// Every code of batch records.
    package static let batchRecordCodes: [FindingCode] = [
        .recordMalformed, .recordFieldMissing, .recordTimeInvalid, .tokenReplayed,
    ]
}
