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
            throw Self.invalid(.recipient(second), "token", "the same token as recipients[\(first)]; name each device once")
        }
    }

    /// The recipient `readRecipient` starts from (made once: made each time,
    /// it was built and then copied).
    private static let emptyRecipient = Recipient(platform: .fcm, token: "")

    /// Reads one recipient into a new last element of `recipients`, filled
    /// in place (a recipient built apart was copied into the array, then
    /// destroyed).
    private mutating func readRecipient(appendingTo recipients: inout [Recipient], at location: Place) throws(EventError) {
        var object = JSONScanner.Container()
        _ = try enter(.object, &object, at: location, null: .refused, "must be an object")
        let index = recipients.count
        recipients.append(Self.emptyRecipient)
        var platform: Platform?, token: Text?
        var seen: UInt32 = 0
        while let key = try nextKey(&object, at: location) {
            switch try member(key, of: .recipient, seen: &seen, at: location) {
            case 0:
                guard let name = try text("platform", at: location, nonEmpty: true, maxLength: 4096) else { break }
                guard let known = name.parsed(Platform.init(utf8:)) else {
                    throw Self.invalid(location, "platform", "must be \"fcm\" or \"apns\"")
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
            default:
                if let id = try identifier("user_id", at: location) { recipients[index].userID = id.string }
            }
        }
        guard let platform else { throw Self.invalid(location, "platform", "is required") }
        guard let token else { throw Self.invalid(location, "token", "is required") }
        if let problem = token.deviceTokenProblem(platform) { throw Self.invalid(location, "token", problem) }
        recipients[index].platform = platform
        recipients[index].token = token.string
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
