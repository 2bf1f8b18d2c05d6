import Glibc

/// A certificate authority and a server certificate made at run time, for
/// TLS on 127.0.0.1 without any checked-in secret.
///
/// Both keys are P-256. The CA is self-signed (`CA:TRUE`, `keyCertSign`);
/// the server certificate names `127.0.0.1` (SAN IP) and `localhost` (SAN
/// DNS), has `serverAuth`, and is signed by the CA. Both are valid from five
/// minutes ago for one day by default. Hand `caPEM` to the client as its CA
/// file; the simulator serves `certificatePEM` with `privateKeyPEM`.
///
/// A value type holding PEM text only, so it is `Sendable` and can be shared
/// between the simulator and any number of clients.
public struct ThrowawayPKI: Sendable, Equatable {
    /// The CA certificate (PEM): the trust anchor for clients.
    public let caPEM: String
    /// The server certificate (PEM), issued by the CA.
    public let certificatePEM: String
    /// The server's private key (PKCS#8 PEM).
    public let privateKeyPEM: String

    /// Generates a new CA and server certificate.
    ///
    /// - Parameter validitySeconds: how long both certificates stay valid;
    ///   one day unless a test needs otherwise.
    public init(validitySeconds: Int = 86_400) throws(APNsSimulatorError) {
        let caKey = try OwnedKey.generateP256()
        let ca = try OwnedCertificate.make(commonName: "pushgw throwaway CA", key: caKey, validitySeconds: validitySeconds)
        try ca.setIssuer(ca)
        try ca.addExtension(NIDs.basicConstraints, "critical,CA:TRUE", issuer: ca)
        try ca.addExtension(NIDs.keyUsage, "critical,keyCertSign,cRLSign", issuer: ca)
        try ca.addExtension(NIDs.subjectKeyIdentifier, "hash", issuer: ca)
        try ca.sign(with: caKey)

        let serverKey = try OwnedKey.generateP256()
        let server = try OwnedCertificate.make(commonName: "localhost", key: serverKey, validitySeconds: validitySeconds)
        try server.setIssuer(ca)
        try server.addExtension(NIDs.basicConstraints, "critical,CA:FALSE", issuer: ca)
        try server.addExtension(NIDs.keyUsage, "critical,digitalSignature", issuer: ca)
        try server.addExtension(NIDs.extendedKeyUsage, "serverAuth", issuer: ca)
        try server.addExtension(NIDs.subjectAltName, "IP:127.0.0.1,DNS:localhost", issuer: ca)
        try server.addExtension(NIDs.subjectKeyIdentifier, "hash", issuer: ca)
        try server.addExtension(NIDs.authorityKeyIdentifier, "keyid:always", issuer: ca)
        try server.sign(with: caKey)

        caPEM = try ca.pem()
        certificatePEM = try server.pem()
        privateKeyPEM = try serverKey.privateKeyPEM()
    }

    /// Writes `caPEM` to `path` (created or truncated, mode 0644).
    public func writeCA(to path: String) throws(APNsSimulatorError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw SystemCallFailure.error("open(\(path))") }
        defer { close(descriptor) }
        let bytes = Array(caPEM.utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if result < 0 {
                if errno == EINTR { continue }
                throw SystemCallFailure.error("write(\(path))")
            }
            written += result
        }
    }
}
