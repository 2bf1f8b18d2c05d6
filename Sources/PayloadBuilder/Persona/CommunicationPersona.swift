/// What an iOS Communication Notification will show, resolved on the server:
/// the model a Notification Service Extension builds from the payload
/// (`INPerson` sender, "me", `INSendMessageIntent`), so `/v1/render` can show
/// it and tests can check it without a device (PROTOCOLS.md A7, A8).
public struct CommunicationPersona: Sendable, Equatable {
    /// One `INPerson`: handle value and type, display name, and whether it is the user.
    public struct Person: Sendable, Equatable {
        /// The handle value; nil for the anonymous "me".
        public var id: String?
        public var displayName: String?
        /// Always `unknown`: ids are the chat's own, never phone numbers or emails,
        /// so iOS must not try to match them against contacts.
        public var handleType: String
        public var isMe: Bool
        /// The avatar URL as forwarded; nil when there is none or it was dropped.
        public var avatarURL: String?
    }

    public var sender: Person
    public var me: Person
    /// `INSendMessageIntent.conversationIdentifier`.
    public var conversationID: String
    /// `speakableGroupName`; present for groups and channels.
    public var groupName: String?
    /// The content the notification shows: the body in the recipients'
    /// language when they all share one, else in the default locale.
    public var content: String

    public init(event: Event, avatar: AvatarState, defaultLocale: String) {
        self.init(event: event, text: NotificationText(event: event), avatar: avatar,
                  language: Self.sharedLanguage(of: event.recipients, defaultLocale: defaultLocale))
    }

    /// With the event's title and body rules already worked out and the
    /// recipients' shared language found (the renderer has both), so rich
    /// text is not stripped nor locales resolved a second time.
    init(event: borrowing Event, text: borrowing NotificationText, avatar: AvatarState, language: String) {
        sender = Person(id: event.sender.id, displayName: event.sender.displayName, handleType: "unknown",
                        isMe: false, avatarURL: avatar.forwardedURL)
        me = Person(id: nil, displayName: nil, handleType: "unknown", isMe: true, avatarURL: nil)
        conversationID = event.conversation.id
        groupName = event.conversation.title
        content = text.body(content: text.content(language: language))
    }

    /// The language every recipient resolves to, or the default one when
    /// they differ (or there are none): the persona is the event's, one text.
    private static func sharedLanguage(of recipients: [Recipient], defaultLocale: String) -> String {
        let fallback = Locales.resolve(nil, defaultLocale: defaultLocale)
        guard let first = recipients.first else { return fallback }
        let language = Locales.resolve(first.locale, defaultLocale: defaultLocale)
        for recipient in recipients.dropFirst() where recipient.locale != first.locale {
            guard Locales.resolve(recipient.locale, defaultLocale: defaultLocale) == language else { return fallback }
        }
        return language
    }
}

/// The language every recipient resolves to, found while the renderer
/// resolves them one by one: `CommunicationPersona.sharedLanguage`'s rule
/// without resolving any locale twice.
struct SharedLanguage {
    private var first: (locale: String?, language: String)?
    private var differs = false

    /// Adds the next recipient: its locale tag and the language it resolves to.
    mutating func add(locale: String?, language: String) {
        guard let first else {
            first = (locale, language)
            return
        }
        if !differs, locale != first.locale, language != first.language { differs = true }
    }

    /// The shared language, or the default one when the recipients differ (or there are none).
    func language(defaultLocale: String) -> String {
        guard let first, !differs else { return Locales.resolve(nil, defaultLocale: defaultLocale) }
        return first.language
    }
}
