/// The title and body rules of API.md for one event.
///
/// With a conversation title (a group or channel) the title is the
/// conversation's and the body is `"<sender>: <content>"`; without one, the
/// title is the sender's name and the body the content. The content is the
/// message's plain text, or a placeholder in the recipient's language when a
/// non-text message has none. `notification.title` overrides the title.
public struct NotificationText: Sendable, Equatable {
    public let title: String
    /// The message's plain text (markup stripped), possibly empty (also when
    /// it was only whitespace): `data.text`.
    public let plainText: String
    public let senderName: String
    public let isGroup: Bool
    public let kind: MessageKind

    public init(event: borrowing Event) {
        let text = event.message.richText ? RichText.plainText(fromMarkup: event.message.text) : event.message.text
        plainText = text.isBlank ? "" : text
        senderName = event.sender.displayName
        isGroup = event.conversation.title != nil
        kind = event.message.kind
        title = event.notification.title ?? event.conversation.title ?? event.sender.displayName
    }

    /// What the notification is about, in `language`: the text, else the placeholder.
    public func content(language: String) -> String {
        if plainText.isEmpty, let placeholder = Placeholders.text(for: kind, language: language) {
            return placeholder
        }
        return plainText
    }

    /// The notification body for a given content.
    public func body(content: String) -> String {
        guard isGroup else { return content }
        return content.isEmpty ? senderName : Concatenation.join(senderName, ": ", content)
    }
}
