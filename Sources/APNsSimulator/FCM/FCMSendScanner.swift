/// The FCM simulator's reader of a `messages:send` body: one pass of the
/// strict JSON grammar (`StrictJSONParser`'s own pieces), checked against
/// `FCMMessageSchema` while it is read, keeping only what FCM's own checks
/// need (`FCMMessageFacts`), with no tree and no string per field.
///
/// Its answer is Google's:
///
/// - a body that is not JSON: the one "Unexpected token" violation;
/// - JSON that is not an object: "Root element must be a message";
/// - otherwise every unknown field and every value of the wrong type, in
///   the order of the document, as Google's JSON-to-proto layer reports
///   them (`Unknown name "foo" at 'message.android': Cannot find field.`,
///   `Invalid value at 'message.data[0].value' (TYPE_STRING), 123`; map
///   entries counted from 0 in written order);
/// - then FCM's own checks (`FCMMessageValidator`), first failure wins.
///
/// A field written twice, in one spelling or in both (json_name and proto
/// name), or a map key written twice: the last value written counts, at
/// the place where the key was first written, as proto's JSON reader
/// merges them. `null` leaves a field unset, as in proto3 JSON.
enum FCMSendScanner {
    /// The message of a `messages:send` body, or Google's refusal of it.
    static func check(_ body: [UInt8]) -> Result<FCMMessageValidator.ValidMessage, GoogleError> {
        var facts = FCMMessageFacts()
        var violations = Violations()
        let read: Result<FCMMessageValidator.ValidMessage, GoogleError>? = StrictJSONParser<APNsPayloadShape>.read(body) { parser in
            parser.skipWhitespace()
            guard parser.index < parser.bytes.count else { return nil }
            guard parser.bytes[parser.index] == UInt8(ascii: "{") else {
                guard parser.parseValue() != nil else { return nil }
                return .failure(.unparsable([GoogleError.FieldViolation(
                    field: nil, description: "Invalid JSON payload received. Unknown name \"\": Root element must be a message.")]))
            }
            guard parser.scanObject(FCMMessageSchema.sendRequest.scanTable, place: .root, at: .root,
                                    facts: &facts, violations: &violations) else { return nil }
            let bytes = parser.bytes
            return FCMMessageValidator.validate(facts, violations: violations) { range in
                // The exact compact size, only when the written size does not settle it.
                let text = Array(bytes[range])
                return SimulatorJSONParser.parseOrdered(text)?.compactText.utf8.count ?? text.count
            }
        }
        return read ?? .failure(.unexpectedToken)
    }

    /// Where an object sits, as far as FCM's checks care.
    enum Place {
        case root, message, notification, android, androidNotification, webpush, webpushFcmOptions, apns, other

        /// The place of this object's field `role` names, when it is an object.
        func child(_ role: FCMScanTable.Role) -> Place {
            switch (self, role) {
            case (.root, .message): return .message
            case (.message, .notification): return .notification
            case (.message, .android): return .android
            case (.message, .webpush): return .webpush
            case (.message, .apns): return .apns
            case (.android, .notification): return .androidNotification
            case (.webpush, .fcmOptions): return .webpushFcmOptions
            default: return .other
            }
        }
    }

    /// A value's place in Google's errors: its path (`message.data[0].value`)
    /// and its order in the merged message: the offsets in the body where
    /// each key on the way was first written (element offsets in arrays).
    /// Made (from a `Path`) only for a violation.
    struct Location {
        var path: String
        var tag: [Int]

        /// The member written first at `offset` as `name`.
        func member(_ name: String, firstWrittenAt offset: Int) -> Location {
            Location(path: path.isEmpty ? name : path + "." + name, tag: tag + [offset])
        }
    }

    /// The schema violations found so far, each with the tag of its value.
    struct Violations {
        private(set) var found: [(tag: [Int], violation: GoogleError.FieldViolation)] = []
        /// A value was replaced by a later one: `found` is out of document order.
        private var replaced = false

        var isEmpty: Bool { found.isEmpty }

        mutating func add(_ violation: GoogleError.FieldViolation, tag: [Int]) {
            found.append((tag, violation))
        }

        /// Forgets the violations inside the value of the key first written
        /// at `offset`, which a later value replaces.
        mutating func replace(firstWrittenAt offset: Int) {
            replaced = true
            found.removeAll { $0.tag.contains(offset) }
        }

        /// The violations in the order of the merged message.
        var inOrder: [GoogleError.FieldViolation] {
            guard replaced else { return found.map(\.violation) }
            return found.enumerated().sorted { left, right in
                left.element.tag.lexicographicallyPrecedes(right.element.tag)
                    || (left.element.tag == right.element.tag && left.offset < right.offset)
            }.map(\.element.violation)
        }
    }

    /// Whether the ASCII data key is one FCM reserves (`isReserved`'s rule).
    static func isReservedASCII(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
        func lower(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte + 0x20 : byte }
        func hasPrefix(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard key.count >= count else { return false }
            for offset in 0..<count where lower(key[offset]) != word.utf8Start[offset] { return false }
            return true
        }
        func equals(_ word: StaticString) -> Bool { key.count == word.utf8CodeUnitCount && hasPrefix(word) }
        return equals("from") || equals("message_type") || hasPrefix("google") || hasPrefix("gcm")
    }
}
