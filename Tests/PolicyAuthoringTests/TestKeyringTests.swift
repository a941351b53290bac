import PolicyRuntime
import PolicyJOSE
import PolicyAuthoring
import Testing

@Suite("Test keyring")
struct TestKeyringTests {
    @Test("every key has its own kid")
    func kidsAreUnique() throws {
        let keyring = try TestKeyring()
        let kids = (keyring.signingKeys + keyring.decryptionKeys).compactMap(\.kid)
        #expect(kids.count == keyring.signingKeys.count + keyring.decryptionKeys.count)
        #expect(Set(kids).count == kids.count)
    }
}
