/// The recipients array and the data object, read as `EventDecoder`'s
/// `decodeRecipients` and `decodeData` read them, except for the rules
/// that depend on the app (credentials per platform, the gateway's own data
/// keys): `EventDecoder.decodeFast` applies those.
extension EventFastReader {
    /// At `[`: at least one and at most `maximumRecipients` recipients, each
    /// valid, no device named twice; appended to `recipients` (empty).
    mutating func readRecipients(into recipients: inout [Recipient]) -> Bool {
        var array = JSONScanner.Container()
        guard scanner.enter(UInt8(ascii: "["), &array) else { return false }
        recipients.reserveCapacity(4)  // one allocation for the usual few
        var ended = false
        while scanner.nextElement(&array, ended: &ended) {
            guard recipients.count < limits.maximumRecipients, readRecipient(appendingTo: &recipients) else { return false }
        }
        return ended && !recipients.isEmpty && Self.namesEachDeviceOnce(recipients)
    }

    /// No two recipients with the same token identity (`SeenTokens`): for a
    /// small event, a scan of the ones before, allocating nothing.
    private static func namesEachDeviceOnce(_ recipients: [Recipient]) -> Bool {
        guard recipients.count <= SeenTokens.linearLimit else {
            var seenTokens = SeenTokens(expected: recipients.count)
            for (index, recipient) in recipients.enumerated() {
                guard seenTokens.insert(recipient.token, platform: recipient.platform, index: index) == nil else { return false }
            }
            return true
        }
        // Borrowed in place (no retain per token read); tokens of different
        // lengths (the usual pair) are told apart without comparing bytes.
        return recipients.withUnsafeBufferPointer { list in
            for later in list.indices {
                let count = list[later].token.utf8.count, lowercase = list[later].platform == .apns
                for earlier in 0..<later where list[earlier].token.utf8.count == count
                    && SeenTokens.sameIdentity(list[earlier].token, lowercasing: list[earlier].platform == .apns,
                                               list[later].token, lowercasing: lowercase) {
                    return false
                }
            }
            return true
        }
    }

    /// The recipient `readRecipient` starts from (made once: made each time,
    /// it was built and then copied).
    private static let emptyRecipient = Recipient(platform: .fcm, token: "")

    /// Reads one recipient into a new last element of `recipients`, filled
    /// in place (a recipient built apart was copied into the array, then
    /// destroyed); on false the caller drops the whole event.
    private mutating func readRecipient(appendingTo recipients: inout [Recipient]) -> Bool {
        var object = JSONScanner.Container()
        guard scanner.enter(UInt8(ascii: "{"), &object) else { return false }
        let index = recipients.count
        recipients.append(Self.emptyRecipient)
        var platform: Platform?, token: JSONScanner.Text?
        var seen: UInt32 = 0, ended = false
        while let key = scanner.nextKeyName(&object, ended: &ended) {
            switch field(key, Names.recipient, seen: &seen) {
            case 0?:
                // Required: null is refused.
                guard let name = textOrNull(nonEmpty: true, maxBytes: 4096), let name,
                      let known = name.withUTF8({ Platform(utf8: $0) }) else { return false }
                platform = known
            case 1?:
                // Required; its length and bytes are checked below, once the platform is known.
                guard let text = textOrNull(nonEmpty: true, maxBytes: 4096), let text else { return false }
                token = text
            case 2?:
                if !scanner.null() {
                    guard let number = scanner.integer(), (0...Int64(Int32.max)).contains(number) else { return false }
                    recipients[index].badge = Int(number)
                }
            case 3?:
                guard let tag = textOrNull(nonEmpty: true, maxBytes: 35) else { return false }
                if let tag { recipients[index].locale = Self.supportedLanguage(tag) ?? tag.string }
            case 4?:
                guard let id = identifierOrNull() else { return false }
                if let id { recipients[index].userID = id.string }
            default: return false
            }
        }
        guard ended, let platform, let token,
              token.withUTF8({ DeviceToken.problem(utf8: $0, platform: platform) }) == nil else { return false }
        recipients[index].platform = platform
        recipients[index].token = token.string
        return true
    }

    /// A tag that is one of `Locales`' languages as it is (`vi`, `en`,
    /// `fr`: the usual tag), as that language's literal: the same string,
    /// without making one from the bytes (about a hundred instructions per
    /// recipient). Nil for any other tag.
    @inline(__always)
    private static func supportedLanguage(_ tag: JSONScanner.Text) -> String? {
        guard tag.utf8Count == 2 else { return nil }
        switch (tag.utf8[0], tag.utf8[1]) {
        case (UInt8(ascii: "v"), UInt8(ascii: "i")): return "vi"
        case (UInt8(ascii: "e"), UInt8(ascii: "n")): return "en"
        case (UInt8(ascii: "f"), UInt8(ascii: "r")): return "fr"
        default: return nil
        }
    }

    /// At `{`: string values only, no key written twice (same code units, as
    /// `JSONParser` compares keys), at most `maximumDataMembers`.
    mutating func readData(into entries: inout [DataEntry]) -> Bool {
        var object = JSONScanner.Container()
        guard scanner.enter(UInt8(ascii: "{"), &object) else { return false }
        var ended = false
        while let key = scanner.nextStringKey(&object, ended: &ended) {
            guard entries.count < Self.maximumDataMembers, let value = scanner.string(),
                  !entries.contains(where: { $0.key.hasSameCodeUnits(as: key) }) else { return false }
            entries.append(DataEntry(key, value))
        }
        return ended
    }
}
