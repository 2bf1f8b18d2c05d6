/// One `FCMMessageSchema` object type as `FCMSendScanner` reads it: flat
/// tables of plain values, so that finding a field by the bytes of its
/// name is a few length checks and one byte comparison, and reading its
/// facts copies no String, array or enum payload (no reference counting).
///
/// Immutable once built (with its schema), so `Sendable`; a class so that
/// the scanner passes one reference per object instead of copying arrays.
final class FCMScanTable: Sendable {
    /// What a field holds, without the payload `FCMMessageSchema.Kind` carries.
    enum Shape: UInt8, Sendable {
        case string, bool, integer, number, duration, durationList, timestamp, enumeration, stringMap, stringList, object, freeObject
    }

    /// The fields the scanner's rules single out by name (lowerCamelCase,
    /// whichever the spelling); every other field is `other`.
    enum Role: UInt8, Sendable {
        case other, token, topic, condition, fid, title, body, image, color, validateOnly, ttl, data, payload, link
        case message, notification, android, androidV2, webpush, apns, headers, fcmOptions

        init(_ name: String) {
            switch name {
            case "token": self = .token
            case "topic": self = .topic
            case "condition": self = .condition
            case "fid": self = .fid
            case "title": self = .title
            case "body": self = .body
            case "image": self = .image
            case "color": self = .color
            case "validateOnly": self = .validateOnly
            case "ttl": self = .ttl
            case "data": self = .data
            case "payload": self = .payload
            case "message": self = .message
            case "notification": self = .notification
            case "android": self = .android
            case "webpush": self = .webpush
            case "apns": self = .apns
            case "headers": self = .headers
            case "link": self = .link
            case "androidV2": self = .androidV2
            case "fcmOptions": self = .fcmOptions
            default: self = .other
            }
        }
    }

    /// One field's facts.
    struct Field: Sendable {
        /// This field's bit among the object's fields (both spellings share it).
        let bit: UInt64
        let shape: Shape
        let role: Role
        /// Enumerations: compared after ASCII uppercasing.
        let caseInsensitive: Bool
        /// Enumerations: the positions of the field's values among the
        /// enumeration values in `words` (which follow the spellings).
        let values: Range<Int>
    }

    /// A byte range of `words`.
    private struct Word: Sendable {
        let start: Int
        let count: Int
        /// The field a spelling names (unused for enumeration values).
        let field: Int
    }

    let fields: [Field]
    /// Objects: the nested type's table, by field.
    let children: [FCMScanTable?]
    /// Every spelling and every enumeration value, back to back.
    private let bytes: [UInt8]
    /// Spellings first (`spellingCount` of them), then enumeration values.
    private let words: [Word]
    private let spellingCount: Int

    /// The fields in bit order, each with its spellings (lowerCamelCase first).
    init(_ entries: [(name: String, spellings: [String], kind: FCMMessageSchema.Kind)]) {
        var fields: [Field] = []
        var children: [FCMScanTable?] = []
        var bytes: [UInt8] = []
        var spellings: [Word] = []
        var values: [Word] = []
        for (position, entry) in entries.enumerated() {
            for spelling in entry.spellings {
                spellings.append(Word(start: bytes.count, count: spelling.utf8.count, field: position))
                bytes.append(contentsOf: spelling.utf8)
            }
            let shape: Shape
            var caseInsensitive = false
            var child: FCMScanTable?
            let firstValue = values.count
            switch entry.kind {
            case .string: shape = .string
            case .bool: shape = .bool
            case .integer: shape = .integer
            case .number: shape = .number
            case .duration: shape = .duration
            case .durationList: shape = .durationList
            case .timestamp: shape = .timestamp
            case .enumeration(_, let names, let insensitive):
                shape = .enumeration
                caseInsensitive = insensitive
                for name in names.sorted() {
                    values.append(Word(start: bytes.count, count: name.utf8.count, field: position))
                    bytes.append(contentsOf: name.utf8)
                }
            case .stringMap: shape = .stringMap
            case .stringList: shape = .stringList
            case .object(let schema):
                shape = .object
                child = schema.scanTable
            case .freeObject: shape = .freeObject
            }
            fields.append(Field(bit: UInt64(1) << UInt64(position), shape: shape, role: Role(entry.name),
                                caseInsensitive: caseInsensitive,
                                values: firstValue..<values.count))
            children.append(child)
        }
        self.fields = fields
        self.children = children
        self.bytes = bytes
        words = spellings + values
        spellingCount = spellings.count
    }

    /// The field spelled `key`, if it is one of this object's.
    func field(named key: UnsafeBufferPointer<UInt8>) -> Int? {
        bytes.withUnsafeBufferPointer { all in
            words.withUnsafeBufferPointer { words in
                for word in words[..<spellingCount] where word.count == key.count
                    && TextBytes.equal(UnsafeBufferPointer(rebasing: all[word.start..<word.start + word.count]), key) {
                    return word.field
                }
                return nil
            }
        }
    }

    /// Whether the string `text` is one of `field`'s enumeration values
    /// (ASCII only; uppercased first when the field is case-insensitive).
    /// `false` for any non-ASCII text: the strict path decides those.
    func isValue(_ text: UnsafeBufferPointer<UInt8>, of field: Field) -> Bool {
        guard TextBytes.isASCII(text) else { return false }
        return bytes.withUnsafeBufferPointer { all in
            words.withUnsafeBufferPointer { words in
                words[spellingCount + field.values.lowerBound..<spellingCount + field.values.upperBound].contains { word in
                    guard word.count == text.count else { return false }
                    for offset in 0..<text.count {
                        var byte = text[offset]
                        if field.caseInsensitive, (0x61...0x7A).contains(byte) { byte -= 0x20 }
                        if all[word.start + offset] != byte { return false }
                    }
                    return true
                }
            }
        }
    }
}
