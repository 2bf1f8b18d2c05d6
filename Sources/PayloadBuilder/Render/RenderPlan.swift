/// Everything about one event that does not depend on the device: computed
/// once per event, then shared by every recipient's request.
///
/// A class so that the templates and their builders share one plan rather
/// than copying (and retaining) every string of the event; immutable once
/// built (constants only: reading one needs no exclusivity check). It keeps
/// no copy of the event: what the templates need from it is in `text` and
/// `fragments`, and the rare error path is handed the event.
///
/// The bytes the fragments and templates index live in a store the
/// renderer owns (`makeStore()`) and lends to each call that writes there.
final class RenderPlan {
    let text: NotificationText
    let avatarURL: String?
    /// `apns-collapse-id`: the event id, or its SHA-256 hex when over 64 bytes.
    let collapseID: String
    /// `apns-expiration`: now + ttl in epoch seconds; `0` (one attempt) when ttl is 0.
    let expirationSeconds: Int64
    /// The event's JSON pieces that every template copies, escaped once
    /// into the store.
    let fragments: PlanFragments

    /// APNs' and FCM's payload limit for alert notifications.
    static let payloadLimit = 4096
    /// Room kept for `,"badge":<Int32.max>`, so one template fits every badge.
    static let badgeReserve = 19

    /// The buffer for one event's fragments, then every template built from
    /// them, that per-device bodies copy from; freed with the renderer's
    /// local. Room for the seed event's fragments and two templates (about
    /// 3,500 bytes), and a per-device FCM body assembled after them (about
    /// 1,100), without growing.
    static func makeStore() -> ByteWriter {
        ByteWriter(capacity: storeCapacity)
    }

    /// The first capacity of a store (see `makeStore()`).
    static var storeCapacity: Int { 6144 }

    /// Writes the fragments into `store` (made by `makeStore()`, empty).
    init(event: borrowing Event, app: borrowing AppProfile, avatarURL: String?, now: Int64, store: inout ByteWriter) {
        // Borrowed: the plan's own copy is the only one made. Worked out in
        // locals, which the fragments borrow, then moved in.
        let text = NotificationText(event: event)
        let collapseID = event.eventID.utf8.count <= 64 ? event.eventID : SHA256.hexDigest(event.eventID.utf8)
        let expirationSeconds = event.notification.ttlSeconds == 0 ? 0 : now + Int64(event.notification.ttlSeconds)
        fragments = PlanFragments(title: text.title, avatarURL: avatarURL, collapseID: collapseID,
                                  expirationSeconds: expirationSeconds, event: event, dataKeys: app.dataKeys, into: &store)
        apnsPriority = event.notification.priority == .high ? "10" : "5"
        self.text = text
        self.collapseID = collapseID
        self.expirationSeconds = expirationSeconds
        self.avatarURL = avatarURL
    }

    /// `apns-priority`: 10 for high, 5 for normal.
    let apnsPriority: String

    /// The content and data text for one recipient language, shortened to
    /// `characters` graphemes plus an ellipsis when given.
    func content(language: String, shortenedTo characters: Int?) -> (content: String, dataText: String) {
        let full = text.content(language: language)
        guard let characters else { return (full, text.plainText) }
        let shortened = String(full.prefix(characters)) + "…"
        return (shortened, text.plainText.isEmpty ? text.plainText : shortened)
    }

    /// Builds a template at the end of `store` (the plan's), shortening the content at a
    /// grapheme boundary until `size` of the template is within `limit`.
    /// Trials that do not fit are taken back out of the store. Throws when
    /// even an empty content does not fit (the title or the extra data are too large).
    func fitted<Template>(event: borrowing Event, language: String, limit: Int, store: inout ByteWriter,
                          build: (String, String, inout ByteWriter) -> Template,
                          size: (Template) -> Int) throws(EventError) -> Template {
        let mark = store.count
        let full = content(language: language, shortenedTo: nil)
        let template = build(full.content, full.dataText, &store)
        if size(template) <= limit { return template }
        store.truncate(to: mark)
        var low = 0
        var high = full.content.count - 1
        var best: Int?
        while low <= high {
            let middle = (low + high) / 2
            let candidate = content(language: language, shortenedTo: middle)
            let fits = size(build(candidate.content, candidate.dataText, &store)) <= limit
            store.truncate(to: mark)
            if fits {
                best = middle
                low = middle + 1
            } else {
                high = middle - 1
            }
        }
        guard let best else {
            let field = largestFixedField(of: event)
            throw EventError(.invalidEvent, field: field,
                             "the notification cannot fit the \(limit)-byte payload limit even with the text removed; shorten \(field)")
        }
        // The text comes before the avatar and long names: when they would
        // leave it fewer than `textKeptWithAvatar` characters, the renderer
        // renders again without the avatar (reason `does_not_fit`), then
        // with the names cut. A long avatar URL (written twice) or long names
        // (three times) cut a short message to a few characters before.
        if best < Self.textKeptWithAvatar, avatarURL != nil || event.hasShortenableNames {
            throw EventError(.invalidEvent, field: avatarURL != nil ? "sender.avatar_url" : largestFixedField(of: event),
                             "only \(best) characters of the text fit the \(limit)-byte payload limit")
        }
        let chosen = content(language: language, shortenedTo: best)
        return build(chosen.content, chosen.dataText, &store)
    }

    /// The fewest characters of a shortened text that keep the avatar and long names.
    static let textKeptWithAvatar = 100

    /// The fitted template for `language`, built once per event and language.
    func template<Template>(event: borrowing Event, language: String, cache: inout TemplateCache<Template>,
                            store: inout ByteWriter, limit: Int = RenderPlan.payloadLimit,
                            build: (String, String, inout ByteWriter) -> Template,
                            size: (Template) -> Int) throws(EventError) -> Template {
        if let cached = cache[language] { return cached }
        let template = try fitted(event: event, language: language, limit: limit, store: &store,
                                  build: build, size: size)
        cache.insert(template, for: language)
        return template
    }

    /// The field that takes the most room besides the text: what to shorten
    /// when an event cannot fit even with its text removed.
    func largestFixedField(of event: borrowing Event) -> String {
        var candidates: [(field: String, bytes: Int)] = [
            ("sender.display_name", event.sender.displayName.utf8.count),
            ("data", event.data.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }),
        ]
        if let title = event.conversation.title { candidates.append(("conversation.title", title.utf8.count)) }
        if let title = event.notification.title { candidates.append(("notification.title", title.utf8.count)) }
        if let url = avatarURL { candidates.append(("sender.avatar_url", url.utf8.count)) }
        return candidates.max(by: { $0.bytes < $1.bytes })!.field
    }
}

/// The templates of one event by recipient language: a few at most (one
/// per language present), so a scan, with no hashing. The first is held
/// inline, so that the usual event (one language) allocates no array and
/// destroys no array of tuples.
struct TemplateCache<Template> {
    private var first: (language: String, template: Template)?
    private var others: [(language: String, template: Template)] = []

    subscript(language: String) -> Template? {
        if let first, first.language == language { return first.template }
        return others.first(where: { $0.language == language })?.template
    }

    mutating func insert(_ template: Template, for language: String) {
        if first == nil {
            first = (language, template)
        } else {
            others.append((language, template))
        }
    }
}
