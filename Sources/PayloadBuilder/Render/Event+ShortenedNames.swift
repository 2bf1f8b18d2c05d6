extension Event {
    /// The most characters, and UTF-8 bytes, a title or the sender's name
    /// keeps when the names leave the text no room (each name is written
    /// three times): 64 characters of 3 bytes, before the "…".
    static let shortenedNameGraphemes = 64
    static let shortenedNameBytes = 192

    /// Whether some title or the sender's name is longer than a shortened one.
    var hasShortenableNames: Bool {
        [conversation.title, notification.title, sender.displayName].contains { name in
            guard let name else { return false }
            return name.utf8.count > Self.shortenedNameBytes || name.count > Self.shortenedNameGraphemes
        }
    }

    /// This event with its conversation title, notification title and
    /// sender name cut, at a character boundary, to
    /// `shortenedNameGraphemes` characters and `shortenedNameBytes` bytes
    /// plus "…" where longer; nil when none is.
    func withNamesShortened() -> Event? {
        guard hasShortenableNames else { return nil }
        var event = self
        event.conversation.title = conversation.title.map(Self.shortened)
        event.notification.title = notification.title.map(Self.shortened)
        event.sender.displayName = Self.shortened(sender.displayName)
        return event
    }

    /// `name` itself when within both limits, else its longest prefix within
    /// them and "…".
    private static func shortened(_ name: String) -> String {
        guard name.utf8.count > shortenedNameBytes || name.count > shortenedNameGraphemes else { return name }
        var end = name.startIndex
        var characters = 0
        var bytes = 0
        while end < name.endIndex, characters < shortenedNameGraphemes {
            let next = name.index(after: end)
            let size = name.utf8.distance(from: end, to: next)
            guard bytes + size <= shortenedNameBytes else { break }
            bytes += size
            characters += 1
            end = next
        }
        return String(name[..<end]) + "…"
    }
}
