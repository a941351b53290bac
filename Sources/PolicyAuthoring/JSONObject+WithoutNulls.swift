@_spi(RuleAuthoring) import PolicyJOSE
extension JSONObject {
    /// The object without the members whose value is null: what a test case's `null` means.
    var withoutNulls: JSONObject { JSONObject(members: members.filter { $0.value != .null }) }
}
