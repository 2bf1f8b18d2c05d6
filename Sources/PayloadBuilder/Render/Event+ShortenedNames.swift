extension Event {
    /// The fields `withNamesShortened(to:)` shortens, as a refusal names them.
    static let shortenableNames: Set<String> = ["sender.display_name", "conversation.title", "notification.title"]

    /// This event with its conversation title, notification title and
    /// sender name cut to `graphemes` characters plus "…" where longer; nil
    /// when none is.
    func withNamesShortened(to graphemes: Int) -> Event? {
        func shortened(_ text: String) -> String? {
            text.count > graphemes ? String(text.prefix(graphemes)) + "…" : nil
        }
        var event = self
        var changed = false
        if let title = conversation.title, let short = shortened(title) {
            event.conversation.title = short
            changed = true
        }
        if let title = notification.title, let short = shortened(title) {
            event.notification.title = short
            changed = true
        }
        if let short = shortened(sender.displayName) {
            event.sender.displayName = short
            changed = true
        }
        return changed ? event : nil
    }
}
