/// An app's URL of the page a web notification opens when clicked (FCM's
/// `webpush.fcm_options.link`): a template in which each
/// `{conversation_id}` is replaced with the conversation id,
/// percent-encoded (RFC 3986: every byte but the unreserved `A-Z a-z 0-9
/// - . _ ~` as `%XX`), so any id makes a valid URL and one path segment.
///
/// FCM accepts only an HTTPS link: the template must start `https://`, name
/// a host, and hold printable ASCII that a URL may hold (no space, `"`, `<`,
/// `>`, `\`, `^`, `` ` `` or `|`); `{conversation_id}` is its only
/// placeholder (another `{…}` is refused as a likely misspelling).
public struct WebLinkTemplate: Sendable, Equatable {
    /// The template as configured, e.g. `https://chat.example/c/{conversation_id}`.
    public let template: String
    /// The template's text around the placeholders: one more piece than
    /// there are placeholders; and the same JSON-escaped.
    private let pieces: [String]
    private let escapedPieces: [[UInt8]]

    public static let placeholder = "{conversation_id}"

    /// Checks `template`; `setting` names it in the error.
    public init(_ template: String, setting: String) throws(ConfigError) {
        let bytes = Array(template.utf8)
        // Printable ASCII, less the characters RFC 3986 never allows in a URI.
        let neverInURL = Set("\"<>\\^`|".utf8)
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !neverInURL.contains($0) }) else {
            throw ConfigError(setting: setting, "a URL of printable ASCII without spaces or \" < > \\ ^ ` |, "
                + "e.g. https://chat.example/c/{conversation_id}")
        }
        guard HTTPURL.schemeLength(bytes.span) == 8, bytes.count > 8,
              ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains(bytes[8]) else {
            throw ConfigError(setting: setting, "must be an https:// URL with a host: FCM opens only HTTPS links")
        }
        var pieces: [String] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            guard rest[open...].hasPrefix(Self.placeholder) else {
                throw ConfigError(setting: setting, "the only placeholder is \(Self.placeholder); write other braces percent-encoded (%7B, %7D)")
            }
            pieces.append(String(rest[..<open]))
            rest = rest[open...].dropFirst(Self.placeholder.utf8.count)
        }
        if rest.contains("}") {
            throw ConfigError(setting: setting, "the only placeholder is \(Self.placeholder); write other braces percent-encoded (%7B, %7D)")
        }
        pieces.append(String(rest))
        self.template = template
        self.pieces = pieces
        escapedPieces = pieces.map { ByteWriter.escaped($0) }
    }

    /// The link for `conversationID`.
    public func link(conversationID: String) -> String {
        var encoded = ByteWriter(capacity: 3 * conversationID.utf8.count)
        Self.appendPercentEncoded(conversationID, to: &encoded)
        return pieces.joined(separator: String(decoding: encoded.bytes, as: UTF8.self))
    }

    /// Appends the link for `conversationID` as a quoted JSON string.
    func appendQuotedLink(conversationID: String, to out: inout ByteWriter) {
        out.append(UInt8(ascii: "\""))
        for (index, piece) in escapedPieces.enumerated() {
            if index > 0 { Self.appendPercentEncoded(conversationID, to: &out) }
            out.append(piece)
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `text`'s UTF-8 with every byte but the unreserved ones as `%XX`
    /// (uppercase hex): nothing in it needs JSON escaping.
    static func appendPercentEncoded(_ text: String, to out: inout ByteWriter) {
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
    }
}
