internal import COpenSSL

/// What a certificate says about its holder, read for `x5c.leaf` matching: subject attributes,
/// subject alternative names, extended key usages, certificate policies and admission roles.
extension X509Certificate {
    /// A subject alternative name kind a policy can name.
    public enum AlternativeNameKind: String, Sendable, CaseIterable {
        case dns, uri, email
    }

    /// The subject's attributes by short name (`CN`, `O`, `OU`, `C`, `serialNumber`, ...), as UTF-8.
    public var subjectAttributes: [(name: String, value: String)] {
        guard let name = X509_get_subject_name(pointer) else { return [] }
        return (0..<X509_NAME_entry_count(name)).compactMap { index in
            guard let entry = X509_NAME_get_entry(name, index), let object = X509_NAME_ENTRY_get_object(entry),
                  let data = X509_NAME_ENTRY_get_data(entry) else { return nil }
            let nid = OBJ_obj2nid(object)
            let short = nid == NID_undef ? Self.text(object) : OBJ_nid2sn(nid).map { String(cString: $0) } ?? Self.text(object)
            var utf8: UnsafeMutablePointer<UInt8>? = nil
            let length = ASN1_STRING_to_UTF8(&utf8, data)
            guard length >= 0, let utf8 else { return nil }
            defer { COpenSSL_free(utf8) }
            return (short, String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self))
        }
    }

    /// DNS names, URIs and e-mail addresses of the subject alternative name extension.
    public var alternativeNames: [(kind: AlternativeNameKind, value: String)] {
        guard let names = OpaquePointer(X509_get_ext_d2i(pointer, NID_subject_alt_name, nil, nil)) else { return [] }
        defer { GENERAL_NAMES_free(names) }
        return (0..<OPENSSL_sk_num(names)).compactMap { index in
            guard let raw = OPENSSL_sk_value(names, index) else { return nil }
            let name = raw.assumingMemoryBound(to: GENERAL_NAME.self).pointee
            let kind: AlternativeNameKind
            switch name.type {
            case GEN_DNS: kind = .dns
            case GEN_URI: kind = .uri
            case GEN_EMAIL: kind = .email
            default: return nil
            }
            guard let string = name.d.ia5, let bytes = ASN1_STRING_get0_data(string) else { return nil }
            return (kind, String(decoding: UnsafeBufferPointer(start: bytes, count: Int(ASN1_STRING_length(string))), as: UTF8.self))
        }
    }

    /// The extended key usage OIDs, dotted.
    public var extendedKeyUsages: [String] {
        objects(of: NID_ext_key_usage, free: { EXTENDED_KEY_USAGE_free($0) }) { OpaquePointer($0) }
    }

    /// The certificate policy OIDs, dotted.
    public var policies: [String] {
        objects(of: NID_certificate_policies, free: { CERTIFICATEPOLICIES_free($0) }) { raw in
            raw.assumingMemoryBound(to: POLICYINFO.self).pointee.policyid
        }
    }

    /// The profession OIDs of the admission extension (common PKI, as gematik's TI certificates
    /// name a holder's role: `oid_idpd` for the IDP), dotted.
    public var admissionRoles: [String] {
        guard let syntax = OpaquePointer(X509_get_ext_d2i(pointer, NID_x509ExtAdmission, nil, nil)) else { return [] }
        defer { ADMISSION_SYNTAX_free(syntax) }
        var roles: [String] = []
        guard let admissions = ADMISSION_SYNTAX_get0_contentsOfAdmissions(syntax) else { return [] }
        for index in 0..<OPENSSL_sk_num(admissions) {
            guard let admission = OPENSSL_sk_value(admissions, index), let infos = ADMISSIONS_get0_professionInfos(OpaquePointer(admission)) else { continue }
            for infoIndex in 0..<OPENSSL_sk_num(infos) {
                guard let info = OPENSSL_sk_value(infos, infoIndex), let oids = PROFESSION_INFO_get0_professionOIDs(OpaquePointer(info)) else { continue }
                for oidIndex in 0..<OPENSSL_sk_num(oids) {
                    if let oid = OPENSSL_sk_value(oids, oidIndex) { roles.append(Self.text(OpaquePointer(oid))) }
                }
            }
        }
        return roles
    }

    /// The OIDs a stack-valued extension holds, each read from an element by `object`.
    private func objects(of nid: Int32, free: (OpaquePointer) -> Void, _ object: (UnsafeMutableRawPointer) -> OpaquePointer?) -> [String] {
        guard let stack = OpaquePointer(X509_get_ext_d2i(pointer, nid, nil, nil)) else { return [] }
        defer { free(stack) }
        return (0..<OPENSSL_sk_num(stack)).compactMap { index in
            OPENSSL_sk_value(stack, index).flatMap(object).map(Self.text)
        }
    }

    /// An object identifier in dotted form.
    private static func text(_ object: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        let length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
        guard length > 0, Int(length) < buffer.count else { return "?" }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
