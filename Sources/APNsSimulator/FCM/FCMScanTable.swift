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

    /// One field's facts, all plain values (copied without reference counting).
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

    /// The proto type name of the object (`FCMMessageSchema.typeName`).
    let typeName: String
    let fields: [Field]
    /// The type Google names in an "Invalid value" error, by field.
    let typeNames: [String]
    /// Each spelling's text, by spelling number (`field(named:)`).
    let spellingNames: [String]
    /// Objects: the nested type's table, by field.
    let children: [FCMScanTable?]
    /// Every spelling and every enumeration value, back to back.
    private let bytes: [UInt8]
    /// Spellings first (`spellingCount` of them), then enumeration values.
    private let words: [Word]
    let spellingCount: Int

    /// The fields in bit order, each with its spellings (lowerCamelCase first).
    init(_ typeName: String, _ entries: [(name: String, spellings: [String], kind: FCMMessageSchema.Kind)]) {
        self.typeName = typeName
        var spellingNames: [String] = []
        var fields: [Field] = []
        var typeNames: [String] = []
        var children: [FCMScanTable?] = []
        var bytes: [UInt8] = []
        var spellings: [Word] = []
        var values: [Word] = []
        for (position, entry) in entries.enumerated() {
            for spelling in entry.spellings {
                spellings.append(Word(start: bytes.count, count: spelling.utf8.count, field: position))
                spellingNames.append(spelling)
                bytes.append(contentsOf: spelling.utf8)
            }
            let shape: Shape
            var caseInsensitive = false
            var child: FCMScanTable?
            let firstValue = values.count
            var fieldType = ""
            switch entry.kind {
            case .string: shape = .string; fieldType = "TYPE_STRING"
            case .bool: shape = .bool; fieldType = "TYPE_BOOL"
            case .integer: shape = .integer; fieldType = "TYPE_INT32"
            case .number: shape = .number; fieldType = "TYPE_FLOAT"
            case .duration: shape = .duration; fieldType = "type.googleapis.com/google.protobuf.Duration"
            case .durationList: shape = .durationList; fieldType = "type.googleapis.com/google.protobuf.Duration"
            case .timestamp: shape = .timestamp; fieldType = "type.googleapis.com/google.protobuf.Timestamp"
            case .enumeration(let enumType, let names, let insensitive):
                shape = .enumeration
                fieldType = enumType
                caseInsensitive = insensitive
                for name in names.sorted() {
                    values.append(Word(start: bytes.count, count: name.utf8.count, field: position))
                    bytes.append(contentsOf: name.utf8)
                }
            case .stringMap: shape = .stringMap; fieldType = "map<string, string>"
            case .stringList: shape = .stringList; fieldType = "TYPE_STRING"
            case .object(let schema):
                shape = .object
                child = schema.scanTable
                fieldType = schema.typeName
            case .freeObject: shape = .freeObject; fieldType = "type.googleapis.com/google.protobuf.Struct"
            }
            fields.append(Field(bit: UInt64(1) << UInt64(position), shape: shape, role: Role(entry.name),
                                caseInsensitive: caseInsensitive,
                                values: firstValue..<values.count))
            typeNames.append(fieldType)
            children.append(child)
        }
        self.fields = fields
        self.typeNames = typeNames
        self.spellingNames = spellingNames
        self.children = children
        self.bytes = bytes
        words = spellings + values
        spellingCount = spellings.count
    }

    /// The number of the spelling `key` is (below `spellingCount`), if it
    /// names one of this object's fields. Names compare as Strings do
    /// (canonical equivalence), which for ASCII is comparing bytes.
    func spelling(named key: UnsafeBufferPointer<UInt8>) -> Int? {
        guard TextBytes.isASCII(key) else {
            let name = String(decoding: key, as: UTF8.self)
            return spellingNames.firstIndex(of: name)
        }
        return bytes.withUnsafeBufferPointer { all in
            words.withUnsafeBufferPointer { words in
                for spelling in 0..<spellingCount where words[spelling].count == key.count
                    && TextBytes.equal(UnsafeBufferPointer(rebasing: all[words[spelling].start..<words[spelling].start + key.count]), key) {
                    return spelling
                }
                return nil
            }
        }
    }

    /// The field spelling number `spelling` names.
    func field(ofSpelling spelling: Int) -> Int { words[spelling].field }

    /// Whether the string `text` is one of `field`'s enumeration values
    /// (uppercased first when the field is case-insensitive: ASCII bytes
    /// directly, other text by `String.uppercased()`).
    func isValue(_ text: UnsafeBufferPointer<UInt8>, of field: Field) -> Bool {
        guard TextBytes.isASCII(text) else {
            let name = String(decoding: text, as: UTF8.self)
            guard field.caseInsensitive else { return enumerationValues(of: field).contains(name) }
            return enumerationValues(of: field).contains(name.uppercased())
        }
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

    /// `field`'s enumeration values as Strings (for non-ASCII text only).
    private func enumerationValues(of field: Field) -> [String] {
        words[spellingCount + field.values.lowerBound..<spellingCount + field.values.upperBound].map { word in
            String(decoding: bytes[word.start..<word.start + word.count], as: UTF8.self)
        }
    }
}
