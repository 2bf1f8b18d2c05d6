/// Where the header fields APNs reads sit in a request, found in one pass
/// over the field bytes: the first field of each name, as
/// `ReceivedRequest.value` finds it, and whether a regular (not pseudo)
/// field name occurs twice (A2's `DuplicateHeaders`).
///
/// Names compare as Strings (`TextBytes.same`). For the names APNs reads,
/// that is byte equality: they are ASCII without `K`, `;` or `` ` ``, the
/// only ASCII characters another scalar is canonically equivalent to
/// (U+212A, U+037E, U+1FEF), so no other byte sequence is an equal String.
/// Only the other names are compared among themselves.
struct APNsHeaderIndex {
    /// The fields the validator reads.
    enum Name: Int {
        case method, path, authorization, id, topic, pushType, priority, collapseID, expiration

        var text: StaticString {
            switch self {
            case .method: ":method"
            case .path: ":path"
            case .authorization: "authorization"
            case .id: "apns-id"
            case .topic: "apns-topic"
            case .pushType: "apns-push-type"
            case .priority: "apns-priority"
            case .collapseID: "apns-collapse-id"
            case .expiration: "apns-expiration"
            }
        }

        /// The name `bytes` spells, if it is one of these: the length picks
        /// the one candidate, one comparison settles it.
        static func of(_ bytes: UnsafeBufferPointer<UInt8>) -> Name? {
            let candidate: Name
            switch bytes.count {
            case 5: candidate = .path
            case 7: candidate = bytes[0] == UInt8(ascii: ":") ? .method : .id
            case 10: candidate = .topic
            case 13: candidate = bytes[4] == UInt8(ascii: "-") ? .priority : .authorization
            case 14: candidate = .pushType
            case 15: candidate = .expiration
            case 16: candidate = .collapseID
            default: return nil
            }
            return TextBytes.equal(bytes, candidate.text) ? candidate : nil
        }
    }

    /// The entry index of each name, or -1 when absent.
    private var positions = InlineArray<9, Int>(repeating: -1)
    /// Whether a regular field name occurs more than once.
    private(set) var hasDuplicate = false

    /// Indexes `fields` (whose bytes are `all`).
    init(_ fields: HeaderFields, bytes all: UnsafeBufferPointer<UInt8>) {
        let entries = fields.entries
        func name(_ index: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: all[entries[index].nameRange]) }
        for index in entries.indices {
            let bytes = name(index)
            if let known = Name.of(bytes) {
                if self[known] == nil {
                    self[known] = index
                } else if known != .method, known != .path {
                    hasDuplicate = true
                }
            } else if !hasDuplicate, bytes.first != UInt8(ascii: ":") {
                hasDuplicate = (0..<index).contains { TextBytes.same(name($0), bytes) }
            }
        }
    }

    /// The entry index of `name`'s field, if present.
    subscript(name: Name) -> Int? {
        get { positions[name.rawValue] < 0 ? nil : positions[name.rawValue] }
        set { positions[name.rawValue] = newValue ?? -1 }
    }
}
