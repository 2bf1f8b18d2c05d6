/// The `name` an accepted message is answered with,
/// `projects/{project}/messages/{id}`: a fresh id `0:<epoch ms>%<16 hex>`,
/// unique per simulator like Google's, or `fake_message_id` for a
/// `validate_only` dry run, as Google's dry runs answer.
///
/// Kept as its parts so the common answer is written as bytes
/// (`FCMRequestHandler`), with the text built only to be recorded.
struct FCMMessageName {
    /// The epoch milliseconds and per-simulator sequence of a sent
    /// message; `nil` for a dry run.
    var sent: (milliseconds: Int64, sequence: UInt64)?

    /// Appends the id (ASCII, nothing to escape in JSON) to `bytes`.
    func appendID(to bytes: inout [UInt8]) {
        guard let sent else {
            bytes.append(contentsOf: "fake_message_id".utf8)
            return
        }
        bytes.append(contentsOf: "0:".utf8)
        bytes.append(contentsOf: String(sent.milliseconds).utf8)
        bytes.append(UInt8(ascii: "%"))
        for shift in stride(from: 60, through: 0, by: -4) {
            let digit = UInt8(truncatingIfNeeded: sent.sequence >> UInt64(shift)) & 0x0F
            bytes.append(digit < 10 ? 0x30 + digit : 0x61 + digit - 10)
        }
    }

    /// `projects/{project}/messages/{id}`.
    func text(project: String) -> String {
        var id: [UInt8] = []
        appendID(to: &id)
        return "projects/\(project)/messages/" + String(decoding: id, as: UTF8.self)
    }
}
