/// Writes the `/v1/render` answer of API.md for a rendered event: every
/// provider request (with `authorization` redacted), the skipped recipients,
/// the Communication Notification persona and the avatar's state.
///
/// One writer makes the document: the compact form (what the service
/// answers, RenderReport+Compact.swift). The pretty form (`pushgw render`,
/// the golden files) is that document indented, provider bodies included.
public enum RenderReport {
    public static func json(_ rendered: RenderedEvent, pretty: Bool) -> [UInt8] {
        let compact = compactJSON(rendered)
        return pretty ? prettyPrinted(compact) : compact
    }

    /// A compact report indented by two spaces per level, with a final
    /// newline: parsed and written again, so every string is escaped as
    /// `JSONWriter` escapes it. A report always parses (the fuzzer's
    /// `reportParses` invariant); were one not to, it is given as it is.
    static func prettyPrinted(_ compact: [UInt8]) -> [UInt8] {
        guard let document = try? JSONParser.parse(compact) else { return compact + [0x0A] }
        var writer = JSONWriter(pretty: true, capacity: compact.count * 2)
        writer.value(document)
        return writer.bytes + [0x0A]
    }
}
