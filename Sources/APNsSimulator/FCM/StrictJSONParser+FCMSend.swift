/// `FCMSendScanner`'s walk: objects of the FCM schema read field by field
/// with the strict parser's grammar; free-form values (`apns.payload`,
/// `webpush.notification`) parsed for their shape only.
extension StrictJSONParser where Value == APNsPayloadShape {
    typealias Place = FCMSendScanner.Place
    typealias Facts = FCMSendScanner.Facts

    /// At `{`: every member a known field of `table`'s type, at most once in
    /// either spelling, of its kind; `false` sends the body to the strict path.
    mutating func scanObject(_ table: FCMScanTable, place: Place, facts: inout Facts) -> Bool {
        guard enter() else { return false }
        defer { depth -= 1 }
        if closes(UInt8(ascii: "}")) { return true }
        var seen: UInt64 = 0
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""),
                  let found = readString({ table.field(named: $0) }), let position = found else { return false }
            let field = table.fields[position]
            guard seen & field.bit == 0 else { return false }
            seen |= field.bit
            guard colon() else { return false }
            if bytes[index] == UInt8(ascii: "n") {
                guard parseLiteral("null", .other) != nil else { return false }  // unset, as in proto3
            } else if !scanField(field, of: table, at: position, place: place, facts: &facts) {
                return false
            }
            switch next(closing: UInt8(ascii: "}")) {
            case .more: continue
            case .closed: return true
            case .malformed: return false
            }
        }
    }

    /// The non-null value at `index` against the kind of `field` (number
    /// `position` of `table`).
    private mutating func scanField(_ field: FCMScanTable.Field, of table: FCMScanTable, at position: Int, place: Place,
                                    facts: inout Facts) -> Bool {
        let byte = bytes[index]
        let isString = byte == UInt8(ascii: "\"")
        switch field.shape {
        case .string:
            return isString && readString { facts.note($0, field: field.role, place: place) } == true
        case .bool:
            let value: Bool
            if byte == UInt8(ascii: "t"), parseLiteral("true", .other) != nil {
                value = true
            } else if byte == UInt8(ascii: "f"), parseLiteral("false", .other) != nil {
                value = false
            } else {
                return false
            }
            if place == .root, field.role == .validateOnly { facts.validateOnly = value }
            return true
        case .integer:
            if isString { return readString { Int64(String(decoding: $0, as: UTF8.self)) != nil } == true }
            return scanNumber { Int64(String(decoding: $0, as: UTF8.self)) != nil }
        case .number:
            if isString { return readString { Double(String(decoding: $0, as: UTF8.self)) != nil } == true }
            return scanNumber { _ in true }
        case .duration:
            let isTTL = place == .android && field.role == .ttl
            return isString && readString { text in
                FCMMessageReader.isDuration(String(decoding: text, as: UTF8.self)) && (!isTTL || FCMMessageValidator.isAcceptedTTL(text))
            } == true
        case .durationList:
            return byte == UInt8(ascii: "[") && scanStringList { FCMMessageReader.isDuration(String(decoding: $0, as: UTF8.self)) }
        case .timestamp:
            return isString && readString { FCMMessageReader.isTimestamp(Array($0)) } == true
        case .enumeration:
            guard isString else { return scanNumber { Int64(String(decoding: $0, as: UTF8.self)) != nil } }
            return readString { table.isValue($0, of: field) } == true
        case .stringMap:
            guard byte == UInt8(ascii: "{") else { return false }
            if place == .apns, field.role == .headers { return scanAPNsHeaders(facts: &facts) }
            return scanStringMap(data: field.role == .data ? place : .other, facts: &facts)
        case .stringList:
            return byte == UInt8(ascii: "[") && scanStringList { _ in true }
        case .object:
            guard byte == UInt8(ascii: "{"), let childTable = table.children[position] else { return false }
            let child = place.child(field.role)
            if child == .message { facts.hasMessage = true }
            if child == .android { facts.hasAndroid = true }
            return scanObject(childTable, place: child, facts: &facts)
        case .freeObject:
            let start = index
            guard byte == UInt8(ascii: "{"), case .object(let hasAPSObject, let aps, _)? = parseValue() else { return false }
            if place == .message, field.role == .androidV2 { facts.hasAndroidV2 = true }
            guard place == .apns, field.role == .payload else { return true }
            facts.aps = aps
            return hasAPSObject && notePayloadSize(UnsafeBufferPointer(rebasing: bytes[start..<index]), facts: &facts)
        }
    }

    /// `apns.payload` as written, `text`, settles its size when that can
    /// only shrink in compact form (FCMMessageSize counts the compact JSON):
    /// whitespace goes and escapes keep or lose length, except `\b` and `\f`,
    /// which grow to `\u0008` and `\u000c`. So a text within APNs' limit
    /// with no backslash before `b` or `f` fits; anything else (a larger
    /// text, which may still fit once compact) is the strict path's.
    private func notePayloadSize(_ text: UnsafeBufferPointer<UInt8>, facts: inout Facts) -> Bool {
        guard text.count <= FCMMessageSize.apnsPayloadLimit else { return false }
        var position = text.startIndex
        while position < text.endIndex - 1 {
            if text[position] == UInt8(ascii: "\\") {
                let escaped = text[position + 1]
                if escaped == UInt8(ascii: "b") || escaped == UInt8(ascii: "f") { return false }
                position += 2
            } else {
                position += 1
            }
        }
        facts.size.apnsPayload = text.count  // an upper bound of the compact size, within the limit
        return true
    }

    /// At `{` of a `map<string, string>`. For the `data` maps FCM checks
    /// (`data` is the place holding one: message, android, webpush), no
    /// reserved and no non-ASCII key; each is counted (`FCMMessageSize`),
    /// and a key written twice in one (or a hash collision) leaves it to the
    /// strict path.
    private mutating func scanStringMap(data place: Place, facts: inout Facts) -> Bool {
        let checksKeys = place == .message || place == .android || place == .webpush
        let counts = checksKeys
        var counted = 0
        guard enter() else { return false }
        defer { depth -= 1 }
        if closes(UInt8(ascii: "}")) { return true }
        let capacity = 64
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: capacity) { hashes in
            var keyCount = 0
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""),
                      let key = readString({ key -> (hash: UInt64, count: Int)? in
                          guard checksKeys else { return (0, 0) }
                          guard key.allSatisfy({ $0 < 0x80 }), !FCMSendScanner.isReservedASCII(key) else { return nil }
                          var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
                          for byte in key { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
                          return (hash, key.count)
                      }), let key else { return false }
                if counts {
                    guard keyCount < capacity, !hashes[0..<keyCount].contains(key.hash) else { return false }
                    hashes[keyCount] = key.hash
                    keyCount += 1
                    counted += key.count
                }
                guard colon(), bytes[index] == UInt8(ascii: "\""),
                      let valueCount = readString({ $0.count }) else { return false }
                if counts { counted += valueCount }
                switch next(closing: UInt8(ascii: "}")) {
                case .more: continue
                case .closed:
                    switch place {
                    case .message: facts.size.messageData = counted
                    case .android: facts.size.androidData = counted
                    case .webpush: facts.size.webpushData = counted
                    default: break
                    }
                    return true
                case .malformed: return false
                }
            }
        }
    }

    /// At `{` of `apns.headers`: every header noted (`FCMAPNsHeaders`);
    /// one the rules read given twice leaves it to the strict path.
    private mutating func scanAPNsHeaders(facts: inout Facts) -> Bool {
        guard enter() else { return false }
        defer { depth -= 1 }
        if closes(UInt8(ascii: "}")) { return true }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""),
                  let name = readString({ String(decoding: $0, as: UTF8.self) }),
                  colon(), bytes[index] == UInt8(ascii: "\""),
                  let value = readString({ String(decoding: $0, as: UTF8.self) }),
                  facts.apnsHeaders.add(name: name, value: value) else { return false }
            switch next(closing: UInt8(ascii: "}")) {
            case .more: continue
            case .closed: return true
            case .malformed: return false
            }
        }
    }

    /// At `[` of a `repeated string`, each element one `accept` takes.
    private mutating func scanStringList(_ accept: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        guard enter() else { return false }
        defer { depth -= 1 }
        if closes(UInt8(ascii: "]")) { return true }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), readString({ accept($0) }) == true else { return false }
            switch next(closing: UInt8(ascii: "]")) {
            case .more: continue
            case .closed: return true
            case .malformed: return false
            }
        }
    }

    /// A number literal at `index`, accepted when `accept` takes its text.
    private mutating func scanNumber(_ accept: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        let start = index
        let byte = bytes[index]
        guard byte == UInt8(ascii: "-") || (0x30...0x39).contains(byte), parseValue() != nil else { return false }
        return accept(UnsafeBufferPointer(rebasing: bytes[start..<index]))
    }

    // MARK: Punctuation, as `parseObject` reads it

    /// Steps over the opening bracket at `index`, one level deeper.
    private mutating func enter() -> Bool {
        depth += 1
        guard depth <= Self.maximumDepth else {
            depth -= 1
            return false
        }
        index += 1
        return true
    }

    /// Steps over `closing` when it is the next thing (an empty object or array).
    private mutating func closes(_ closing: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == closing else { return false }
        index += 1
        return true
    }

    /// Steps over the `:` after a key and the whitespace after it; `true`
    /// when a value follows.
    private mutating func colon() -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return false }
        index += 1
        skipWhitespace()
        return index < bytes.count
    }

    private enum Separator { case more, closed, malformed }

    /// Steps over the `,` or `closing` after a member or element.
    private mutating func next(closing: UInt8) -> Separator {
        skipWhitespace()
        guard index < bytes.count else { return .malformed }
        if bytes[index] == UInt8(ascii: ",") { index += 1; return .more }
        if bytes[index] == closing { index += 1; return .closed }
        return .malformed
    }
}
