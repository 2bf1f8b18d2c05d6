/// The recipients array and the data object, read as `EventDecoder`'s
/// `decodeRecipients` and `decodeData` read them, except for the rules
/// that depend on the app (credentials per platform, the gateway's own data
/// keys): `EventDecoder.decodeFast` applies those.
extension EventFastReader {
    /// At `[`: at least one and at most `maximumRecipients` recipients, each
    /// valid, no device named twice.
    mutating func readRecipients() -> [Recipient]? {
        var array = JSONScanner.Container()
        guard scanner.enter(UInt8(ascii: "["), &array) else { return nil }
        var recipients: [Recipient] = []
        recipients.reserveCapacity(4)  // one allocation for the usual few
        var ended = false
        while scanner.nextElement(&array, ended: &ended) {
            guard recipients.count < limits.maximumRecipients, let recipient = readRecipient() else { return nil }
            recipients.append(recipient)
        }
        guard ended, !recipients.isEmpty else { return nil }
        return Self.namesEachDeviceOnce(recipients) ? recipients : nil
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
        for later in recipients.indices {
            let token = recipients[later].token, lowercase = recipients[later].platform == .apns
            for earlier in 0..<later
            where SeenTokens.sameIdentity(recipients[earlier].token, lowercasing: recipients[earlier].platform == .apns,
                                          token, lowercasing: lowercase) {
                return false
            }
        }
        return true
    }

    private mutating func readRecipient() -> Recipient? {
        var object = JSONScanner.Container()
        guard scanner.enter(UInt8(ascii: "{"), &object) else { return nil }
        var platformName: String?, token: String?, badge: Int?, locale: String?, userID: String?
        var seen: UInt32 = 0, ended = false
        while let key = scanner.nextKey(&object, ended: &ended) {
            switch field(key, Names.recipient, seen: &seen) {
            case 0?: guard readString(&platformName, nonEmpty: true, maxBytes: 4096) else { return nil }
            case 1?: guard readString(&token, nonEmpty: true, maxBytes: 4096) else { return nil }
            case 2?:
                if !scanner.null() {
                    guard let number = scanner.integer(), (0...Int64(Int32.max)).contains(number) else { return nil }
                    badge = Int(number)
                }
            case 3?: guard readString(&locale, nonEmpty: true, maxBytes: 35) else { return nil }
            case 4?: guard readIdentifier(&userID) else { return nil }
            default: return nil
            }
        }
        guard ended, let platformName, let platform = Platform(named: platformName), let token,
              DeviceToken.problem(with: token, platform: platform) == nil else { return nil }
        return Recipient(platform: platform, token: token, badge: badge, locale: locale, userID: userID)
    }

    /// At `{`: string values only, no key written twice (same code units, as
    /// `JSONParser` compares keys), at most `maximumDataMembers`.
    mutating func readData() -> [DataEntry]? {
        var object = JSONScanner.Container()
        guard scanner.enter(UInt8(ascii: "{"), &object) else { return nil }
        var entries: [DataEntry] = []
        var ended = false
        while let key = scanner.nextStringKey(&object, ended: &ended) {
            guard entries.count < Self.maximumDataMembers, let value = scanner.string(),
                  !entries.contains(where: { Self.sameCodeUnits($0.key, key) }) else { return nil }
            entries.append(DataEntry(key, value))
        }
        return ended ? entries : nil
    }

    private static func sameCodeUnits(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a
        var b = b
        return a.withUTF8 { x in b.withUTF8 { y in x.elementsEqual(y) } }
    }
}
