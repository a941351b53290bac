@_spi(RuleAuthoring) import PolicyRuntime
import Testing

/// The caches' token hash is SipHash: checked against the reference implementation's published
/// SipHash-2-4 vectors (key 00…0f, message 00…n-1), which exercise the word loop, every tail
/// length and the finalization that SipHash-1-3 shares with different round counts.
@Suite("SipHash")
struct SipHashTests {
    static let key: (UInt64, UInt64) = (0x0706_0504_0302_0100, 0x0F0E_0D0C_0B0A_0908)

    static let vectors: [UInt64] = [
        0x726F_DB47_DD0E_0E31, 0x74F8_39C5_93DC_67FD, 0x0D6C_8009_D9A9_4F5A, 0x8567_6696_D7FB_7E2D,
        0xCF27_94E0_2771_87B7, 0x1876_5564_CD99_A68D, 0xCBC9_466E_58FE_E3CE, 0xAB02_00F5_8B01_D137,
        0x93F5_F579_9A93_2462, 0x9E00_82DF_0BA9_E4B0, 0x7A5D_BBC5_94DD_B9F3, 0xF4B3_2F46_226B_ADA7,
        0x751E_8FBC_860E_E5FB, 0x14EA_5627_C084_3D90, 0xF723_CA90_8E7A_F2EE, 0xA129_CA61_49BE_45E5,
        0x3F2A_CC7F_57C2_9BDB, 0x699A_E9F5_2CBE_4794, 0x4BC1_B3F0_968D_D39C, 0xBB6D_C91D_A779_61BD,
        0xBED6_5CF2_1AA2_EE98, 0xD0F2_CBB0_2E3B_67C7, 0x9353_6795_E3A3_3E88, 0xA80C_038C_CD5C_CEC8,
        0xB8AD_50C6_F649_AF94, 0xBCE1_92DE_8A85_B8EA, 0x17D8_35B8_5BBB_15F3, 0x2F2E_6163_076B_CFAD,
        0xDE4D_AAAC_A71D_C9A5, 0xA6A2_5066_8795_6571, 0xAD87_A353_5C49_EF28, 0x32D8_92FA_D841_C342,
        0x7127_512F_72F2_7CCE, 0xA7F3_2346_F959_78E3, 0x12E0_B01A_BB05_1238, 0x15E0_34D4_0FA1_97AE,
        0x314D_FFBE_0815_A3B4, 0x0279_90F0_2962_3981, 0xCADC_D4E5_9EF4_0C4D, 0x9ABF_D876_6A33_735C,
        0x0E3E_A96B_5304_A7D0, 0xAD0C_42D6_FC58_5992, 0x1873_06C8_9BC2_15A9, 0xD4A6_0ABC_F379_2B95,
        0xF935_451D_E4F2_1DF2, 0xA953_8F04_1975_5787, 0xDB9A_CDDF_F56C_A510, 0xD06C_98CD_5C09_75EB,
        0xE612_A3CB_9ECB_A951, 0xC766_E62C_FCAD_AF96, 0xEE64_435A_9752_FE72, 0xA192_D576_B245_165A,
        0x0A87_87BF_8ECB_74B2, 0x81B3_E73D_20B4_9B6F, 0x7FA8_220B_A3B2_ECEA, 0x2457_31C1_3CA4_2499,
        0xB78D_BFAF_3A8D_83BD, 0xEA1A_D565_322A_1A0B, 0x60E6_1C23_A379_5013, 0x6606_D7E4_4628_2B93,
        0x6CA4_ECB1_5C5F_91E1, 0x9F62_6DA1_5C96_25F3, 0xE51B_3860_8EF2_5F57, 0x958A_324C_EB06_4572,
    ]

    @Test("SipHash-2-4 gives the reference vectors for messages of 0 to 63 bytes")
    func referenceVectors() {
        let message = (0..<64).map(UInt8.init)
        for (length, expected) in Self.vectors.enumerated() {
            let hash = message.prefix(length).withUnsafeBytes {
                SipHash.hash($0, key: Self.key, compressionRounds: 2, finalizationRounds: 4)
            }
            #expect(hash == expected, "length \(length)")
        }
    }

    @Test("The process's SipHash-1-3 depends on every byte and on the length")
    func everyByteCounts() {
        let token = Array("eyJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJodHRwczovL2lzc3Vlci5leGFtcGxlIn0.c2lnbmF0dXJl".utf8)
        let hash = token.withUnsafeBytes(SipHash.hash13)
        var hashes: Set<UInt64> = [hash]
        for position in token.indices {
            var changed = token
            changed[position] ^= 1
            hashes.insert(changed.withUnsafeBytes(SipHash.hash13))
        }
        hashes.insert((token + [0]).withUnsafeBytes(SipHash.hash13))
        #expect(hashes.count == token.count + 2)
        #expect(token.withUnsafeBytes(SipHash.hash13) == hash)
    }
}
