/// `FCMSendScanner`'s walk: objects of the FCM schema read field by field
/// with the strict parser's grammar; free-form values (`apns.payload`,
/// `webpush.notification`) and values of the wrong type parsed for their
/// shape only. Each method returns `false` only for text that is not JSON;
/// schema violations are collected and the reading goes on.
extension StrictJSONParser where Value == APNsPayloadShape {
    typealias Place = FCMSendScanner.Place
    typealias Facts = FCMMessageFacts
    typealias Location = FCMSendScanner.Location
    typealias Path = FCMSendScanner.Path
    typealias Violations = FCMSendScanner.Violations

    /// What a key of a schema object names.
    private enum Key {
        case spelling(Int)
        case unknown(String)
    }

    /// At `{` of an object of `table`'s type at `path`.
    mutating func scanObject(_ table: FCMScanTable, place: Place, at path: Path,
                             facts: inout Facts, violations: inout Violations) -> Bool {
        guard enter() else { return false }
        defer { depth -= 1 }
        if closes(UInt8(ascii: "}")) { return true }
        var seen: (UInt64, UInt64) = (0, 0)
        var unknown: [(name: String, offset: Int)] = []
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: max(table.spellingCount, 1)) { firstOffsets in
            while true {
                skipWhitespace()
                let keyStart = index
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""),
                      let key = readString({ text -> Key in
                          table.spelling(named: text).map(Key.spelling) ?? .unknown(String(decoding: text, as: UTF8.self))
                      }), colon() else { return false }
                switch key {
                case .unknown(let name):
                    var offset = keyStart
                    if let earlier = unknown.first(where: { $0.name == name }) {
                        offset = earlier.offset
                        violations.replace(firstWrittenAt: offset)
                    } else {
                        unknown.append((name, keyStart))
                    }
                    guard parseValue() != nil else { return false }
                    let parent = path.location
                    let place = parent.path.isEmpty ? "" : " at '\(parent.path)'"
                    violations.add(GoogleError.FieldViolation(
                        field: parent.path.isEmpty ? nil : parent.path,
                        description: "Invalid JSON payload received. Unknown name \(JSONText.quoted(name))\(place): Cannot find field."),
                        tag: parent.tag + [offset])
                case .spelling(let spelling):
                    let bit = UInt64(1) << UInt64(spelling & 63)
                    var offset = keyStart
                    if spelling < 64 ? seen.0 & bit != 0 : seen.1 & bit != 0 {
                        offset = firstOffsets[spelling]
                        violations.replace(firstWrittenAt: offset)
                    } else {
                        if spelling < 64 { seen.0 |= bit } else { seen.1 |= bit }
                        firstOffsets[spelling] = keyStart
                    }
                    let position = table.field(ofSpelling: spelling)
                    let field = table.fields[position]
                    facts.clear(field.role, at: place)
                    if bytes[index] == UInt8(ascii: "n") {
                        guard parseLiteral("null", .other) != nil else { return false }  // unset, as in proto3
                    } else if !scanField(field, of: table, at: position, place: place,
                                         at: path.member(spelling, firstWrittenAt: offset),
                                         facts: &facts, violations: &violations) {
                        return false
                    }
                }
                switch next(closing: UInt8(ascii: "}")) {
                case .more: continue
                case .closed: return true
                case .malformed: return false
                }
            }
        }
    }

    /// The non-null value at `index` against the kind of `field` (number
    /// `position` of `table`) at `path`.
    private mutating func scanField(_ field: FCMScanTable.Field, of table: FCMScanTable, at position: Int, place: Place,
                                    at path: Path, facts: inout Facts, violations: inout Violations) -> Bool {
        let start = index
        let byte = bytes[index]
        let isString = byte == UInt8(ascii: "\"")
        let isNumber = byte == UInt8(ascii: "-") || (0x30...0x39).contains(byte)
        /// A value of the field's kind: whether it is valid (`nil`: not JSON).
        var read: Bool??
        switch field.shape {
        case .string:
            if isString { read = readString { facts.note($0, field: field.role, place: place); return true } }
        case .bool:
            if byte == UInt8(ascii: "t") || byte == UInt8(ascii: "f") {
                let value = byte == UInt8(ascii: "t")
                guard parseLiteral(value ? "true" : "false", .other) != nil else { return false }
                if place == .root, field.role == .validateOnly { facts.validateOnly = value }
                return true
            }
        case .integer:
            if isString { read = readString { Int64(String(decoding: $0, as: UTF8.self)) != nil } }
            if isNumber { read = scanNumber { Int64(String(decoding: $0, as: UTF8.self)) != nil } }
        case .number:
            if isString { read = readString { Double(String(decoding: $0, as: UTF8.self)) != nil } }
            if isNumber { read = scanNumber { _ in true } }
        case .duration:
            guard isString else { break }
            let isTTL = place == .android && field.role == .ttl
            read = readString { text in
                guard ProtoJSONFormat.isDuration(text) else { return false }
                if isTTL, !FCMMessageValidator.isAcceptedTTL(text) { facts.refusedTTL = String(decoding: text, as: UTF8.self) }
                return true
            }
        case .durationList:
            guard byte == UInt8(ascii: "[") else { break }
            return scanList(ProtoJSONFormat.isDuration, type: table.typeNames[position], at: path, violations: &violations)
        case .timestamp:
            if isString { read = readString(ProtoJSONFormat.isTimestamp) }
        case .enumeration:
            if isString { read = readString { table.isValue($0, of: field) } }
            if isNumber { read = scanNumber { Int64(String(decoding: $0, as: UTF8.self)) != nil } }
        case .stringMap:
            guard byte == UInt8(ascii: "{") else { break }
            return scanMap(of: field.role == .data ? place : .other, headers: place == .apns && field.role == .headers,
                           at: path, facts: &facts, violations: &violations)
        case .stringList:
            guard byte == UInt8(ascii: "[") else { break }
            return scanList({ _ in true }, type: table.typeNames[position], at: path, violations: &violations)
        case .object:
            guard byte == UInt8(ascii: "{"), let childTable = table.children[position] else { break }
            let child = place.child(field.role)
            if child == .message { facts.hasMessage = true }
            if child == .android { facts.hasAndroid = true }
            return scanObject(childTable, place: child, at: path, facts: &facts, violations: &violations)
        case .freeObject:
            guard byte == UInt8(ascii: "{") else { break }
            guard case .object(let hasAPSObject, let aps, _)? = parseValue() else { return false }
            if place == .message, field.role == .androidV2 { facts.hasAndroidV2 = true }
            if place == .apns, field.role == .payload { notePayload(from: start, hasAPSObject: hasAPSObject, aps: aps, facts: &facts) }
            return true
        }
        if let read {
            guard let accepted = read else { return false }
            if accepted { return true }
        } else {
            guard parseValue() != nil else { return false }  // of another kind
        }
        invalid(from: start, table.typeNames[position], at: path.location, &violations)
        return true
    }

    /// Google's "Invalid value" for the value read from `start`, quoted as
    /// compact JSON.
    private func invalid(from start: Int, _ type: String, at location: Location, _ violations: inout Violations) {
        let text = SimulatorJSONParser.parseOrdered(Array(bytes[start..<index]))?.compactText ?? ""
        violations.add(GoogleError.FieldViolation(field: location.path,
                                                  description: "Invalid value at '\(location.path)' (\(type)), \(text)"),
                       tag: location.tag)
    }

    /// `apns.payload`, an object written from `start`. Its written size
    /// bounds its compact size (FCMMessageSize counts the compact JSON):
    /// whitespace goes and escapes keep or lose length, except `\b` and
    /// `\f`, which grow to `\u0008` and `\u000c`; with those, the compact
    /// size is measured now, else only if the bound is over a limit.
    private func notePayload(from start: Int, hasAPSObject: Bool, aps: APNsPayloadShape.APSFacts, facts: inout Facts) {
        facts.hasAPNsPayload = true
        facts.hasAPSObject = hasAPSObject
        facts.aps = aps
        let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
        var position = text.startIndex
        while position < text.endIndex - 1 {
            if text[position] == UInt8(ascii: "\\") {
                let escaped = text[position + 1]
                if escaped == UInt8(ascii: "b") || escaped == UInt8(ascii: "f") {
                    facts.size.apnsPayload = SimulatorJSONParser.parseOrdered(Array(text))?.compactText.utf8.count ?? text.count
                    return
                }
                position += 2
            } else {
                position += 1
            }
        }
        facts.size.apnsPayload = text.count
        facts.inexactAPNsPayload = start..<index
    }

    /// At `{` of a `map<string, string>` at `path`. `place` is the
    /// place holding it when it is one of the `data` maps FCM checks
    /// (message, android, webpush): its first reserved key is kept and its
    /// keys and values counted (`FCMMessageSize`). `headers`: `apns.headers`
    /// (`FCMAPNsHeaders`).
    private mutating func scanMap(of place: Place, headers: Bool, at path: Path,
                                  facts: inout Facts, violations: inout Violations) -> Bool {
        let checksKeys = place == .message || place == .android || place == .webpush
        guard enter() else { return false }
        defer { depth -= 1 }
        // Entries are plain values (no references), so the room needs no deinitializing.
        let result: (bytes: Int, count: Int, reservedKey: String?)? = withUnsafeTemporaryAllocation(
            of: MapKeys.Entry.self, capacity: MapKeys.roomCapacity) { room in
            var keys = MapKeys(room: room)
            var reservedKey: String?
            if !closes(UInt8(ascii: "}")) {
                while true {
                    skipWhitespace()
                    let keyStart = index
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\""),
                          let (key, header) = readString({ text -> (MapKeys.Key, FCMAPNsHeaders.Name?) in
                              var key = MapKeys.Key(text)
                              if checksKeys, reservedKey == nil,
                                 key.isASCII ? FCMSendScanner.isReservedASCII(text)
                                     : FCMMessageValidator.isReserved(String(decoding: text, as: UTF8.self)) {
                                  key.isReserved = true
                              }
                              return (key, headers ? FCMAPNsHeaders.name(text) : nil)
                          }) else { return nil }
                    let keyEnd = index
                    guard colon() else { return nil }
                    let entry = keys.find(key, written: keyStart..<keyEnd, in: bytes)
                    if let entry {
                        violations.replace(firstWrittenAt: keys[entry].keyStart)
                    } else if key.isReserved {
                        reservedKey = readKey(keyStart..<keyEnd)
                    }
                    let position = entry ?? keys.count
                    let offset = entry.map { keys[$0].keyStart } ?? keyStart
                    let valueStart = index
                    var valueCount = 0
                    if bytes[index] == UInt8(ascii: "\"") {
                        guard let count = readString({ text -> Int in
                            if let header { facts.apnsHeaders.set(header, value: text) }
                            return text.count
                        }) else { return nil }
                        valueCount = count
                    } else {
                        guard parseValue() != nil else { return nil }
                        let parent = path.location
                        invalid(from: valueStart, "TYPE_STRING",
                                at: Location(path: parent.path + "[\(position)].value", tag: parent.tag + [offset]), &violations)
                    }
                    keys.set(entry, key: key, written: keyStart..<keyEnd, valueCount: valueCount)
                    switch next(closing: UInt8(ascii: "}")) {
                    case .more: continue
                    case .closed: break
                    case .malformed: return nil
                    }
                    break
                }
            }
            return (keys.bytes, keys.count, reservedKey)
        }
        guard let result else { return false }
        if checksKeys { facts.noteData(at: place, bytes: result.bytes, count: result.count, reservedKey: result.reservedKey) }
        return true
    }

    /// The key written (quotes included) at `range`, decoded.
    private func readKey(_ range: Range<Int>) -> String {
        guard case .string(let key)? = SimulatorJSONParser.parseOrdered(Array(bytes[range])) else { return "" }
        return key
    }

    /// At `[` of a `repeated` field of `type` at `path`: each element a
    /// string `accept` takes, else an "Invalid value" at its index.
    private mutating func scanList(_ accept: (UnsafeBufferPointer<UInt8>) -> Bool, type: String, at path: Path,
                                   violations: inout Violations) -> Bool {
        guard enter() else { return false }
        defer { depth -= 1 }
        if closes(UInt8(ascii: "]")) { return true }
        var element = 0
        while true {
            skipWhitespace()
            let start = index
            var accepted = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                guard let taken = readString(accept) else { return false }
                accepted = taken
            } else {
                guard parseValue() != nil else { return false }
            }
            if !accepted {
                let parent = path.location
                invalid(from: start, type, at: Location(path: parent.path + "[\(element)]", tag: parent.tag + [start]), &violations)
            }
            element += 1
            switch next(closing: UInt8(ascii: "]")) {
            case .more: continue
            case .closed: return true
            case .malformed: return false
            }
        }
    }

    /// A number literal at `index`: whether `accept` takes its text, `nil`
    /// when it is not a number.
    private mutating func scanNumber(_ accept: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool? {
        let start = index
        guard parseValue() != nil else { return nil }
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
