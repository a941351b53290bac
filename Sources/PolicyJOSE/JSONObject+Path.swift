extension JSONObject {
    /// A copy with `value` at `path` (member names from the top), objects made along the way
    /// where a member is absent or not an object: how the request encryptor replaces a field and
    /// the test minter places a token in a claim.
    package func setting(_ path: ArraySlice<String>, to value: JSONValue) -> JSONObject {
        guard let name = path.first else { return self }
        var copy = self
        copy.set(name, path.count == 1 ? value : .object((self[name]?.objectValue ?? JSONObject()).setting(path.dropFirst(), to: value)))
        return copy
    }
}
