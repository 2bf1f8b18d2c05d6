/// The recipients array and the data object, with every rule that does
/// not depend on the app; `EventDecoder` applies the rest (credentials per
/// platform, the gateway's own data keys).
extension EventReader {
    /// At least one and at most `maximumRecipients` recipients, each valid,
    /// no device named twice; appended to `recipients` (empty).
    mutating func readRecipients(into recipients: inout [Recipient], at location: Place) throws(EventError) {
        var array = JSONScanner.Container()
        _ = try enter(.array, &array, at: location, null: .required, "must be an array of recipients")
        recipients.reserveCapacity(4)  // one allocation for the usual few
        while try scan(location, { scanner throws(JSONScanner.Failure) in try scanner.nextElement(&array) }) {
            guard recipients.count < limits.maximumRecipients else {
                throw EventError(.tooManyRecipients, at: location.path,
                                 "more than \(limits.maximumRecipients) recipients; at most \(limits.maximumRecipients) per event")
            }
            try readRecipient(appendingTo: &recipients, at: .recipient(recipients.count))
        }
        guard !recipients.isEmpty else { throw EventError(.invalidEvent, at: location.path, "name at least one recipient") }
        // Once all are read, when their number is known: a large event's
        // table is made at its size, and a small one needs none.
        if let (first, second) = SeenTokens.firstRepeat(in: recipients) {
            let field = recipients[second].platform == .webpush ? "endpoint" : "token"
            throw Self.invalid(.recipient(second), field, "the same \(field) as recipients[\(first)]; name each device once")
        }
    }

    /// The recipient `readRecipient` starts from (made once: made each time,
    /// it was built and then copied).
    private static let emptyRecipient = Recipient(platform: .fcm, token: "")

    /// Reads one recipient into a new last element of `recipients`, filled
    /// in place (a recipient built apart was copied into the array, then
    /// destroyed). A `webpush` recipient is named by `endpoint` and `keys`,
    /// every other by `token`; the members of the other kind are refused.
    private mutating func readRecipient(appendingTo recipients: inout [Recipient], at location: Place) throws(EventError) {
        var object = JSONScanner.Container()
        _ = try enter(.object, &object, at: location, null: .refused, "must be an object")
        let index = recipients.count
        recipients.append(Self.emptyRecipient)
        var platform: Platform?, token: Text?, endpoint: Text?
        var seen: UInt32 = 0
        while let key = try nextKey(&object, at: location) {
            switch try member(key, of: .recipient, seen: &seen, at: location) {
            case 0:
                guard let name = try text("platform", at: location, nonEmpty: true, maxLength: 4096) else { break }
                guard let known = name.parsed(Platform.init(utf8:)) else {
                    throw Self.invalid(location, "platform", "must be \"fcm\", \"apns\", \"fcm_web\" or \"webpush\"")
                }
                platform = known
            case 1:
                // Its length and bytes are checked below, once the platform is known.
                token = try text("token", at: location, nonEmpty: true, maxLength: 4096)
            case 2:
                guard let badge = try integer("badge", at: location) else { break }
                guard (0...Int64(Int32.max)).contains(badge) else {
                    throw Self.invalid(location, "badge", "must be between 0 and \(Int32.max)")
                }
                recipients[index].badge = Int(badge)
            case 3:
                if let tag = try text("locale", at: location, nonEmpty: true, maxLength: 35) {
                    recipients[index].locale = Self.supportedLanguage(tag) ?? tag.string
                }
            case 4:
                if let id = try identifier("user_id", at: location) { recipients[index].userID = id.string }
            case 5:
                endpoint = try text("endpoint", at: location, nonEmpty: true, maxLength: WebPushEndpoint.maximumLength)
            default:
                recipients[index].webPushKeys = try readWebPushKeys(at: location)
            }
        }
        guard let platform else { throw Self.invalid(location, "platform", "is required") }
        recipients[index].platform = platform
        // By the members present (`seen`'s bits, in `Object.recipient`'s
        // order), null ones included: `"token": null` on a subscription is
        // as foreign to it as a token.
        guard platform == .webpush else {
            if seen & 1 << 5 != 0 { throw Self.invalid(location, "endpoint", "only a webpush recipient has an endpoint") }
            if seen & 1 << 6 != 0 { throw Self.invalid(location, "keys", "only a webpush recipient has keys") }
            guard let token else { throw Self.invalid(location, "token", "is required") }
            if let problem = token.deviceTokenProblem(platform) { throw Self.invalid(location, "token", problem) }
            recipients[index].token = token.string
            return
        }
        if seen & 1 << 1 != 0 {
            throw Self.invalid(location, "token", "a webpush recipient is named by its endpoint and keys, not a token")
        }
        guard let endpoint else { throw Self.invalid(location, "endpoint", "is required") }
        if let problem = endpoint.parsed(WebPushEndpoint.problem(utf8:)) { throw Self.invalid(location, "endpoint", problem) }
        guard recipients[index].webPushKeys != nil else { throw Self.invalid(location, "keys", "is required") }
        recipients[index].token = endpoint.string
    }

    /// A `webpush` recipient's `keys` (null: none): `p256dh` and `auth`,
    /// both required, each base64url of the right number of bytes.
    private mutating func readWebPushKeys(at recipient: Place) throws(EventError) -> WebPushKeys? {
        guard case let .recipient(position) = recipient else { return nil }
        let location = Place.recipientKeys(position)
        var object = JSONScanner.Container()
        guard try enter(.object, &object, at: location, null: .absent, "must be an object with p256dh and auth") else { return nil }
        var p256dh: [UInt8]?, auth: [UInt8]?
        var seen: UInt32 = 0
        while let key = try nextKey(&object, at: location) {
            let name = try member(key, of: .webPushKeys, seen: &seen, at: location) == 0 ? "p256dh" : "auth"
            guard let text = try text(name, at: location, nonEmpty: true, maxLength: WebPushKeys.maximumTextLength) else {
                continue
            }
            let decoded = text.parsed { bytes -> Result<[UInt8], WebPushKeys.KeyProblem>? in
                name == "p256dh" ? WebPushKeys.decodedP256dh(bytes) : WebPushKeys.decodedAuth(bytes)
            }
            switch decoded {
            case let .success(bytes)?: if name == "p256dh" { p256dh = bytes } else { auth = bytes }
            case let .failure(problem)?: throw Self.invalid(location, name, problem.message)
            case nil: break
            }
        }
        guard let p256dh else { throw Self.invalid(location, "p256dh", "is required") }
        guard let auth else { throw Self.invalid(location, "auth", "is required") }
        return WebPushKeys(p256dh: p256dh, auth: auth)
    }

    /// A tag that is one of `Locales`' languages as it is (`vi`, `en`,
    /// `fr`: the usual tag), as that language's literal: the same string,
    /// without making one from the bytes. Nil for any other tag.
    @inline(__always)
    private static func supportedLanguage(_ tag: Text) -> String? {
        guard let (first, second) = tag.twoBytes else { return nil }
        switch (first, second) {
        case (UInt8(ascii: "v"), UInt8(ascii: "i")): return "vi"
        case (UInt8(ascii: "e"), UInt8(ascii: "n")): return "en"
        case (UInt8(ascii: "f"), UInt8(ascii: "r")): return "fr"
        default: return nil
        }
    }

    /// String values only, under keys `DataKeyNames` accepts, no key
    /// written twice (same code units, RFC 8259 §8.3); null is no data.
    mutating func readData(into entries: inout [DataEntry], at location: Place) throws(EventError) {
        var object = JSONScanner.Container()
        guard try enter(.object, &object, at: location, null: .absent, "must be an object of string values") else { return }
        // Keys seen so far, once there are enough that a linear check would be quadratic.
        var seenKeys: Set<[UInt8]>?
        while try nextKey(&object, at: location) != nil {
            let key = scanner.key.string
            if Self.isRepeated(key, in: entries, seen: &seenKeys) {
                throw EventError(.invalidJSON, at: location.appending(key), "the key \"\(key)\" appears twice in one object")
            }
            if let problem = DataKeyNames.problem(with: key) { throw Self.invalid(location, key, problem) }
            let kind = try scan(location, member: key) { scanner throws(JSONScanner.Failure) in try scanner.kind() }
            guard kind == .string else { throw Self.invalid(location, key, "data values must be strings, not \(kind.name)") }
            let value = try scan(location, member: key) { scanner throws(JSONScanner.Failure) in try scanner.text() }
            entries.append(DataEntry(key, value.string))
        }
    }

    /// Whether `key` is already among `entries`: a linear scan for the
    /// first 16, then a set of their bytes.
    private static func isRepeated(_ key: String, in entries: [DataEntry], seen: inout Set<[UInt8]>?) -> Bool {
        if entries.count < 16 {
            return entries.contains(where: { $0.key.hasSameCodeUnits(as: key) })
        }
        if seen == nil { seen = Set(entries.map { Array($0.key.utf8) }) }
        return !seen!.insert(Array(key.utf8)).inserted
    }
}
