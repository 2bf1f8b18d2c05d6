/// Locale handling for placeholders: only the primary language subtag
/// matters (`vi-VN` → `vi`), and unknown languages fall back to English.
public enum Locales {
    /// The languages that have placeholder texts.
    public static let supported: Set<String> = ["en", "vi", "fr"]

    /// `"vi-VN"`, `"vi_VN"`, `"VI"` → `"vi"`.
    public static func primarySubtag(_ tag: String) -> String {
        let end = tag.firstIndex(where: { $0 == "-" || $0 == "_" }) ?? tag.endIndex
        return String(tag[..<end]).lowercased()
    }

    /// The placeholder language for a recipient's tag, else the default, else `en`.
    public static func resolve(_ tag: String?, defaultLocale: String) -> String {
        if let tag {
            let primary = primarySubtag(tag)
            if supported.contains(primary) { return primary }
            return "en"
        }
        return supported.contains(defaultLocale) ? defaultLocale : "en"
    }
}
