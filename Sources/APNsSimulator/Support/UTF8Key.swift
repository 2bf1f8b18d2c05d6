/// A protocol identifier (a key ID, team ID, issuer, topic) compared and
/// hashed as its UTF-8 bytes.
///
/// Swift Strings compare by canonical equivalence, so `"DEMO\u{212A}EY001"`
/// (KELVIN SIGN) equals `"DEMOKEY001"`; Apple and Google compare the bytes
/// they receive, so the simulators do too.
struct UTF8Key: Hashable, Sendable {
    let bytes: [UInt8]

    init(_ text: String) { bytes = Array(text.utf8) }
    init(bytes: [UInt8]) { self.bytes = bytes }
}

extension String {
    /// Whether the two texts are the same UTF-8 bytes (not merely
    /// canonically equivalent, as `==` says).
    func sameBytes(as other: String) -> Bool { utf8.elementsEqual(other.utf8) }

    /// `hasSuffix` on UTF-8 bytes.
    func hasSuffixBytes(_ suffix: String) -> Bool {
        utf8.count >= suffix.utf8.count && utf8.suffix(suffix.utf8.count).elementsEqual(suffix.utf8)
    }
}
