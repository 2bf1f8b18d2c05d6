import COpenSSL

/// Owns one `X509` and frees it in `deinit`; builds the throwaway
/// certificates (version 3, random serial, extensions from OpenSSL's
/// configuration syntax, ECDSA-SHA256 signature).
final class OwnedCertificate {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) { self.pointer = pointer }

    deinit { X509_free(pointer) }

    /// The certificate in `pem`.
    static func parse(pem: String) throws(APNsSimulatorError) -> OwnedCertificate {
        try PEM.withBIO(pem) { bio throws(APNsSimulatorError) in
            guard let certificate = PEM_read_bio_X509(bio, nil, nil, nil) else {
                throw OpenSSLFailure.error("PEM_read_bio_X509")
            }
            return OwnedCertificate(taking: certificate)
        }
    }

    /// A new, unsigned certificate for `key` named `commonName`, valid from
    /// five minutes ago (clock skew) for `validitySeconds`.
    static func make(commonName: String, key: OwnedKey, validitySeconds: Int) throws(APNsSimulatorError) -> OwnedCertificate {
        guard let raw = X509_new() else { throw OpenSSLFailure.error("X509_new") }
        let certificate = OwnedCertificate(taking: raw)
        guard X509_set_version(raw, 2) == 1 else { throw OpenSSLFailure.error("X509_set_version") }
        let serial = Int.random(in: 1...Int.max)
        guard ASN1_INTEGER_set(X509_get_serialNumber(raw), serial) == 1 else { throw OpenSSLFailure.error("ASN1_INTEGER_set") }
        guard X509_gmtime_adj(X509_getm_notBefore(raw), -300) != nil,
              X509_gmtime_adj(X509_getm_notAfter(raw), validitySeconds) != nil else {
            throw OpenSSLFailure.error("X509_gmtime_adj")
        }
        let name = Array(commonName.utf8)
        guard X509_NAME_add_entry_by_txt(X509_get_subject_name(raw), "CN", MBSTRING_ASC, name, Int32(name.count), -1, 0) == 1 else {
            throw OpenSSLFailure.error("X509_NAME_add_entry_by_txt")
        }
        guard X509_set_pubkey(raw, key.pointer) == 1 else { throw OpenSSLFailure.error("X509_set_pubkey") }
        return certificate
    }

    /// Sets the issuer name from `issuer` (itself, for a self-signed CA).
    func setIssuer(_ issuer: OwnedCertificate) throws(APNsSimulatorError) {
        guard X509_set_issuer_name(pointer, X509_get_subject_name(issuer.pointer)) == 1 else {
            throw OpenSSLFailure.error("X509_set_issuer_name")
        }
    }

    /// Adds an extension written as in `openssl.cnf`, e.g.
    /// `subjectAltName` = `IP:127.0.0.1,DNS:localhost`.
    func addExtension(_ nid: Int32, _ value: String, issuer: OwnedCertificate) throws(APNsSimulatorError) {
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer.pointer, pointer, nil, nil, 0)
        guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
            throw OpenSSLFailure.error("X509V3_EXT_conf_nid(\(value))")
        }
        defer { X509_EXTENSION_free(ext) }
        guard X509_add_ext(pointer, ext, -1) == 1 else { throw OpenSSLFailure.error("X509_add_ext") }
    }

    /// Signs with `key` using ECDSA with SHA-256.
    func sign(with key: OwnedKey) throws(APNsSimulatorError) {
        guard X509_sign(pointer, key.pointer, EVP_sha256()) > 0 else { throw OpenSSLFailure.error("X509_sign") }
    }

    /// The certificate as a `CERTIFICATE` PEM block.
    func pem() throws(APNsSimulatorError) -> String {
        try PEM.write("PEM_write_bio_X509") { bio in PEM_write_bio_X509(bio, pointer) }
    }
}
