/// An `OrderedJSON` object's members while they are read: written order,
/// and a repeated key keeps its first position and takes its last value
/// (Google: "the last one wins").
///
/// Small objects, the usual case, look a key up by comparing it with the
/// keys so far; past `indexedCount` members a key-to-position index keeps
/// a large object linear.
struct OrderedMembers {
    private(set) var members: [(key: String, value: OrderedJSON)] = []
    private var positions: [String: Int]?

    static let indexedCount = 16

    /// Room for a typical object's members up front, so most objects
    /// allocate once instead of growing 1, 2, 4, 8.
    init() { members.reserveCapacity(8) }

    mutating func add(_ key: String, _ value: OrderedJSON) {
        if let position = position(of: key) {
            members[position].value = value
            return
        }
        members.append((key, value))
        if positions != nil {
            positions?[key] = members.count - 1
        } else if members.count > Self.indexedCount {
            var index: [String: Int] = [:]
            index.reserveCapacity(members.count * 2)
            for (position, member) in members.enumerated() { index[member.key] = position }
            positions = index
        }
    }

    private func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        return members.firstIndex { $0.key == key }
    }
}
