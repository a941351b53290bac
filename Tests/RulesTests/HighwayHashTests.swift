@_spi(RuleAuthoring) import PolicyRuntime
import Testing

/// The caches' token hash is HighwayHash-64: both of its paths (AVX2 and the portable loop)
/// checked against the reference implementation's published vectors (google/highwayhash,
/// c/highwayhash_test.c: key 00…1f, messages 00…n-1 of 0 to 64 bytes, which exercise one and two
/// packets and every remainder length), and against each other on lengths a token has.
@Suite("HighwayHash")
struct HighwayHashTests {
    static let key = HighwayHash.Key(0x0706_0504_0302_0100, 0x0F0E_0D0C_0B0A_0908, 0x1716_1514_1312_1110, 0x1F1E_1D1C_1B1A_1918)

    static let vectors: [UInt64] = [
        0x907A_56DE_22C2_6E53, 0x7EAB_43AA_C7CD_DD78, 0xB8D0_569A_B0B5_3D62, 0x5C6B_EFAB_8A46_3D80, 0xF205_A468_9300_7EDA,
        0x2B8A_1668_E4A9_4541, 0xBD4C_CC32_5BEF_CA6F, 0x4D02_AE17_38F5_9482, 0xE120_5108_E55F_3171, 0x32D2_644E_C77A_1584,
        0xF6E1_0ACD_B103_A90B, 0xC3BB_F461_5B41_5C15, 0x243C_C204_0063_FA9C, 0xA89A_58CE_65E6_41FF, 0x24B0_31A3_4845_5A23,
        0x4079_3F86_A449_F33B, 0xCFAB_3489_F97E_B832, 0x19FE_67D2_C8C5_C0E2, 0x04DD_90A6_9C56_5CC2, 0x75D9_518E_2371_C504,
        0x38AD_9B11_41D3_DD16, 0x0264_432C_CD8A_70E0, 0xA9DB_5A62_8868_3390, 0xD7B0_5492_003F_028C, 0x205F_615A_EA59_E51E,
        0xEEE0_C896_2105_2884, 0x1BFC_1A93_A728_4F4F, 0x5121_75B5_B70D_A91D, 0xF71F_8976_A0A2_C639, 0xAE09_3FEF_1F84_E3E7,
        0x22CA_92B0_1161_860F, 0x9FC7_007C_CF03_5A68, 0xA0C9_64D9_ECD5_80FC, 0x2C90_F73C_A031_81FC, 0x185C_F84E_5691_EB9E,
        0x4FC1_F5EF_2752_AA9B, 0xF5B7_391A_5E0A_33EB, 0xB9B8_4B83_B4E9_6C9C, 0x5E42_FE71_2A5C_D9B4, 0xA150_F2F9_0C3F_97DC,
        0x7FA5_22D7_5E2D_637D, 0x181A_D0CC_0DFF_D32B, 0x3889_ED98_1E85_4028, 0xFB42_97E8_C586_EE2D, 0x6D06_4A45_BB28_059C,
        0x9056_3609_B3EC_860C, 0x7AA4_FCE9_4097_C666, 0x1326_BAC0_6B91_1E08, 0xB926_168D_2B15_4F34, 0x9919_8489_45B1_948D,
        0xA2A9_8FC5_3482_5EBE, 0xE980_9095_213E_F0B6, 0x582E_5483_707B_C0E9, 0x086E_9414_A88A_6AF5, 0xEE86_B98D_20F6_743D,
        0xF89B_7FF6_09B1_C0A7, 0x4C7D_9CC1_9E22_C3E8, 0x9A97_0050_2456_2A6F, 0x5DD4_1CF4_23E6_EBEF, 0xDF13_609C_0468_E227,
        0x6E0D_A4F6_4188_155A, 0xB755_BA4B_50D7_D4A1, 0x887A_3484_6474_79BD, 0xAB8E_EBE9_BF21_39A0, 0x7554_2C5D_4CD2_A6FF,
    ]

    @Test("both paths give the reference vectors for messages of 0 to 64 bytes, and for the second key's 33-byte message",
          arguments: [HighwayHash.Path.fastest, .portable])
    func referenceVectors(path: HighwayHash.Path) {
        let message = (0...64).map(UInt8.init)
        for (length, expected) in Self.vectors.enumerated() {
            let hash = message.prefix(length).withUnsafeBytes { HighwayHash.hash($0, key: Self.key, path: path) }
            #expect(hash == expected, "length \(length)")
        }
        let high = (0..<33).map { UInt8(128 + $0) }
        #expect(high.withUnsafeBytes { HighwayHash.hash($0, key: HighwayHash.Key(1, 2, 3, 4), path: path) } == 0x53C5_16CC_E478_CAD7)
    }

    @Test("the AVX2 path and the portable loop agree on every length up to 1,100 bytes")
    func pathsAgree() {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<1100).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        for length in bytes.indices {
            bytes.prefix(length).withUnsafeBytes { slice in
                #expect(HighwayHash.hash(slice, key: Self.key) == HighwayHash.hash(slice, key: Self.key, path: .portable), "length \(length)")
            }
        }
    }

    @Test("the process's hash depends on every byte and on the length")
    func everyByteCounts() {
        let token = Array("eyJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJodHRwczovL2lzc3Vlci5leGFtcGxlIn0.c2lnbmF0dXJl".utf8)
        let hash = token.withUnsafeBytes(HighwayHash.hash)
        var hashes: Set<UInt64> = [hash]
        for position in token.indices {
            var changed = token
            changed[position] ^= 1
            hashes.insert(changed.withUnsafeBytes(HighwayHash.hash))
        }
        hashes.insert((token + [0]).withUnsafeBytes(HighwayHash.hash))
        #expect(hashes.count == token.count + 2)
        #expect(token.withUnsafeBytes(HighwayHash.hash) == hash)
        #expect(token.withUnsafeBytes { HighwayHash.hash($0, key: Self.key) } != token.withUnsafeBytes { HighwayHash.hash($0, key: HighwayHash.Key(1, 2, 3, 4)) })
    }
}
