import COpenSSL

/// The OpenSSL object identifiers of the X.509v3 extensions the throwaway
/// certificates carry.
enum NIDs {
    static var basicConstraints: Int32 { NID_basic_constraints }
    static var keyUsage: Int32 { NID_key_usage }
    static var extendedKeyUsage: Int32 { NID_ext_key_usage }
    static var subjectAltName: Int32 { NID_subject_alt_name }
    static var subjectKeyIdentifier: Int32 { NID_subject_key_identifier }
    static var authorityKeyIdentifier: Int32 { NID_authority_key_identifier }
}
