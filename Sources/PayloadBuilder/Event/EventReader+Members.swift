/// The steps `EventReader` reads an object with: its keys (known, and each
/// once), and its members by type, with the messages API.md documents.
/// Error paths are built only when an error names them.
extension EventReader {
    /// The objects of an event and the members each may have.
    enum Object {
        case event, conversation, message, sender, notification, recipient
        /// A `webpush` recipient's `keys`.
        case webPushKeys

        /// The members, in the order their bits are given in `seen`.
        var names: [String] {
            switch self {
            case .event: ["event_id", "app", "conversation", "message", "sender", "recipients", "notification", "data"]
            case .conversation: ["id", "title"]
            case .message: ["id", "text", "kind", "rich_text"]
            case .sender: ["id", "display_name", "avatar_url"]
            case .notification: ["title", "sound", "ttl_seconds", "priority"]
            case .recipient: ["platform", "token", "badge", "locale", "user_id", "endpoint", "keys"]
            case .webPushKeys: ["p256dh", "auth"]
            }
        }

        /// The index of `key` in `names`, or nil for another key.
        @inline(__always)
        func index(_ key: KeyName) -> Int? {
            switch self {
            case .event:
                switch key {
                case "event_id": 0
                case "app": 1
                case "conversation": 2
                case "message": 3
                case "sender": 4
                case "recipients": 5
                case "notification": 6
                case "data": 7
                default: nil
                }
            case .conversation:
                switch key {
                case "id": 0
                case "title": 1
                default: nil
                }
            case .message:
                switch key {
                case "id": 0
                case "text": 1
                case "kind": 2
                case "rich_text": 3
                default: nil
                }
            case .sender:
                switch key {
                case "id": 0
                case "display_name": 1
                case "avatar_url": 2
                default: nil
                }
            case .notification:
                switch key {
                case "title": 0
                case "sound": 1
                case "ttl_seconds": 2
                case "priority": 3
                default: nil
                }
            case .recipient:
                switch key {
                case "platform": 0
                case "token": 1
                case "badge": 2
                case "locale": 3
                case "user_id": 4
                case "endpoint": 5
                case "keys": 6
                default: nil
                }
            case .webPushKeys:
                switch key {
                case "p256dh": 0
                case "auth": 1
                default: nil
                }
            }
        }
    }

    /// What null stands for where an object or array must come.
    enum Null {
        /// The member is left out.
        case absent
        /// A required member is missing.
        case required
        /// Null is a value of the wrong kind.
        case refused
    }

    // MARK: structure

    /// Enters the `kind` (object or array) that must come next, at `location`:
    /// true when entered, false for null when null means `absent`; else
    /// `mismatch + ", not …"`.
    @inline(__always)
    mutating func enter(_ kind: JSONScanner.Kind, _ container: inout JSONScanner.Container, at location: Place,
                        null: Null, _ mismatch: @autoclosure () -> String) throws(EventError) -> Bool {
        let found = try scan(location) { scanner throws(JSONScanner.Failure) in try scanner.kind() }
        if found == kind {
            scanner.enter(&container)
            return true
        }
        if found == .null, null != .refused {
            try scan(location) { scanner throws(JSONScanner.Failure) in _ = try scanner.null() }
            if null == .absent { return false }
            throw EventError(.invalidEvent, at: location.path, "is required")
        }
        throw EventError(.invalidEvent, at: location.path, "\(mismatch()), not \(found.name)")
    }

    /// The next key of the object at `location`, or nil past its end.
    @inline(__always)
    mutating func nextKey(_ object: inout JSONScanner.Container, at location: Place) throws(EventError) -> KeyName? {
        try scan(location) { scanner throws(JSONScanner.Failure) in try scanner.nextKey(&object) }
    }

    /// The index of `key` among the members of `object`, marked in `seen`;
    /// an unknown key or one seen already is refused.
    @inline(__always)
    func member(_ key: KeyName, of object: Object, seen: inout UInt32, at location: Place) throws(EventError) -> Int {
        // The errors are given the key as read, not the reader: handing a
        // function the whole reader would copy it for every member.
        guard let index = object.index(key) else { throw Self.unknownField(scanner.key, of: object, at: location) }
        let bit: UInt32 = 1 << index
        guard seen & bit == 0 else { throw Self.repeatedKey(scanner.key, at: location) }
        seen |= bit
        return index
    }

    /// The first member of `required` (bits of `object.names`) not in `seen`, refused as missing.
    @inline(__always)
    func requireMembers(_ seen: UInt32, _ required: UInt32, of object: Object, at location: Place) throws(EventError) {
        let missing = required & ~seen
        guard missing != 0 else { return }
        throw Self.invalid(location, object.names[missing.trailingZeroBitCount], "is required")
    }

    @inline(never)
    static func unknownField(_ key: Text, of object: Object, at location: Place) -> EventError {
        let known = object.names.sorted().joined(separator: ", ")
        return EventError(.invalidEvent, at: location.appending(key.string), "unknown field (known here: \(known))")
    }

    @inline(never)
    static func repeatedKey(_ key: Text, at location: Place) -> EventError {
        let key = key.string
        return EventError(.invalidJSON, at: location.appending(key), "the key \"\(key)\" appears twice in one object")
    }

    // MARK: values

    /// The string member `name` or null (nil): not empty when `nonEmpty`,
    /// at most `maxLength` characters (Unicode scalars, as JSON Schema's
    /// `maxLength` and docs/openapi.yaml count them).
    @inline(__always)
    mutating func text(_ name: String, at location: Place, nonEmpty: Bool = false,
                       maxLength: Int = .max) throws(EventError) -> Text? {
        guard scanner.atString() else {
            try notString(name, at: location)
            return nil
        }
        let text = try scan(location, member: name) { scanner throws(JSONScanner.Failure) in try scanner.text() }
        if nonEmpty, text.utf8Count == 0 { throw Self.invalid(location, name, "must not be empty") }
        // No more bytes than that: no more characters either, and no count.
        if text.utf8Count > maxLength, text.scalarCount > maxLength {
            throw Self.invalid(location, name, "is longer than \(maxLength) characters")
        }
        return text
    }

    /// Where `text` finds no string: steps over null, else refuses the value.
    @inline(never)
    mutating func notString(_ name: String, at location: Place) throws(EventError) {
        try stepOverNull(name, at: location, else: "must be a string")
    }

    /// Where a reader finds no value of its kind: steps over null, else
    /// refuses the value with `refusal` and the kind it found.
    mutating func stepOverNull(_ name: String, at location: Place, else refusal: String) throws(EventError) {
        let kind = try scan(location, member: name) { scanner throws(JSONScanner.Failure) in try scanner.kind() }
        guard kind == .null else { throw Self.invalid(location, name, "\(refusal), not \(kind.name)") }
        try scan(location, member: name) { scanner throws(JSONScanner.Failure) in _ = try scanner.null() }
    }

    /// The id member `name` or null (nil): a string of at most
    /// `maximumIDBytes` that `Identifier.problem` accepts.
    @inline(__always)
    mutating func identifier(_ name: String, at location: Place) throws(EventError) -> Text? {
        guard let id = try text(name, at: location, nonEmpty: true, maxLength: limits.maximumIDBytes) else { return nil }
        if let problem = id.identifierProblem { throw Self.invalid(location, name, problem) }
        return id
    }

    /// `identifier`, refusing null.
    @inline(__always)
    mutating func requiredIdentifier(_ name: String, at location: Place) throws(EventError) -> Text {
        guard let id = try identifier(name, at: location) else { throw Self.invalid(location, name, "is required") }
        return id
    }

    /// The boolean member `name` or null (nil).
    mutating func bool(_ name: String, at location: Place) throws(EventError) -> Bool? {
        let kind = try scan(location, member: name) { scanner throws(JSONScanner.Failure) in try scanner.kind() }
        switch kind {
        case .boolean: return try scan(location, member: name) { scanner throws(JSONScanner.Failure) in try scanner.bool() }
        case .null:
            try scan(location, member: name) { scanner throws(JSONScanner.Failure) in _ = try scanner.null() }
            return nil
        default: throw Self.invalid(location, name, "must be true or false, not \(kind.name)")
        }
    }

    /// The integer member `name` (a whole number within 64 bits, also when
    /// written `86400.0` or `8.64e4`, as JSON Schema's `integer` is) or
    /// null (nil). Out of line: a
    /// reader of many members keeps its room for `nextKey`, inlined there.
    @inline(never)
    mutating func integer(_ name: String, at location: Place) throws(EventError) -> Int64? {
        guard scanner.atNumber() else {
            try notNumber(name, at: location)
            return nil
        }
        switch try scan(location, member: name, { scanner throws(JSONScanner.Failure) in try scanner.number() }) {
        case let .integer(value): return value
        case .outOfRange: throw Self.invalid(location, name, "is out of range")
        case .notInteger:
            throw Self.invalid(location, name, "must be a whole number, e.g. 86400")
        }
    }

    /// Where `integer` finds no number: steps over null, else refuses the value.
    @inline(never)
    mutating func notNumber(_ name: String, at location: Place) throws(EventError) {
        try stepOverNull(name, at: location, else: "must be a number")
    }

    // MARK: errors

    /// Runs a scanner step for the value at `location` (its member `name`,
    /// if given): a failure becomes the event's error, naming that value,
    /// or `$` for the document itself (a byte order mark, data after the
    /// event). The message says what and at which byte, never the bytes.
    @inline(__always)
    mutating func scan<Result>(_ location: Place, member name: String? = nil,
                               _ step: (inout JSONScanner) throws(JSONScanner.Failure) -> Result) throws(EventError) -> Result {
        do {
            return try step(&scanner)
        } catch {
            throw Self.eventError(error, at: location, name)
        }
    }

    @inline(never)
    static func eventError(_ failure: JSONScanner.Failure, at location: Place, _ name: String?) -> EventError {
        let path = name.map(location.appending) ?? location.path
        return switch failure.kind {
        case .syntax: EventError(.invalidJSON, field: path.field ?? EventError.documentField, failure.message)
        case .utf8: EventError(.invalidUTF8, at: path, failure.message)
        }
    }

    /// An `invalid_event` error about the member `name` at `location`.
    @inline(never)
    static func invalid(_ location: Place, _ name: String, _ message: String) -> EventError {
        EventError(.invalidEvent, at: location.appending(name), message)
    }
}
