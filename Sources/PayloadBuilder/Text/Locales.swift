/// Locale handling for placeholders: only the primary language subtag
/// matters (`vi-VN` → `vi`), and unknown languages fall back to English.
public enum Locales {
    /// The languages that have placeholder texts.
    public static let supported: Set<String> = Set(supportedList)
    /// The same three, for a scan that needs no hashing.
    private static let supportedList: [String] = ["en", "vi", "fr"]

    /// `"vi-VN"`, `"vi_VN"`, `"VI"` → `"vi"`.
    public static func primarySubtag(_ tag: String) -> String {
        if let ascii = asciiPrimarySubtag(tag.utf8.span) { return ascii ?? tag }
        let end = tag.firstIndex(where: { $0 == "-" || $0 == "_" }) ?? tag.endIndex
        return String(tag[..<end]).lowercased()
    }

    /// The placeholder language for a recipient's tag, else the default, else `en`.
    public static func resolve(_ tag: String?, defaultLocale: String) -> String {
        if let tag {
            // The usual tag is a supported language as it is: two bytes
            // (a count read from the string itself) equal to one of them
            // (two words compared) is its own primary subtag.
            if tag.utf8.count == 2, tag == "vi" || tag == "en" || tag == "fr" { return tag }
            let primary = primarySubtag(tag)
            if supportedList.contains(primary) { return primary }
            return "en"
        }
        return supportedList.contains(defaultLocale) ? defaultLocale : "en"
    }

    /// `primarySubtag` of an all-ASCII tag, where characters are bytes and
    /// lowercasing is per byte: `.some(nil)` when it is the tag itself,
    /// nil when the tag has other characters.
    private static func asciiPrimarySubtag(_ tag: Span<UInt8>) -> String?? {
        var end = tag.count
        var changes = false
        for index in tag.indices {
            let byte = tag[index]
            if byte >= 0x80 { return nil }
            if end == tag.count {
                if byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") {
                    end = index
                    changes = true
                } else if (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) {
                    changes = true
                }
            }
        }
        guard changes else { return .some(nil) }
        let lowercase = (0..<end).map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(tag[$0]) ? tag[$0] | 0x20 : tag[$0] }
        return .some(String(decoding: lowercase, as: UTF8.self))
    }
}
