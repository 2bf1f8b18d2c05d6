import PayloadBuilder

/// A least-recently-used map from URL to result with a per-entry expiry.
///
/// O(1) lookup, insert and eviction: a dictionary into an array of nodes that
/// form a doubly linked list from most to least recently used, with freed
/// slots reused. A value type; the resolver keeps it under its lock. Time is
/// whatever instant the caller passes (the resolver's injected clock).
struct AvatarCache<Value> {
    typealias Instant = ContinuousClock.Instant

    private struct Node {
        var key: String
        var value: Value
        var expires: Instant
        var newer: Int?
        var older: Int?
    }

    /// The most entries kept; 0 keeps none.
    let capacity: Int
    private var nodes: [Node] = []
    private var slots: [String: Int] = [:]
    private var freeSlots: [Int] = []
    private var newest: Int?
    private var oldest: Int?

    init(capacity: Int) {
        self.capacity = max(capacity, 0)
    }

    /// How many entries are held, expired ones not yet noticed included.
    var count: Int { slots.count }

    /// The live value for `key`, which becomes the most recently used; an
    /// expired entry is removed and gives `nil`.
    mutating func value(for key: String, now: Instant) -> Value? {
        let slot: Int
        // The key asked for last, asked again (a sender's events in a row):
        // its bytes compared with the newest entry's cost a fraction of
        // hashing a URL for the dictionary. Same bytes are `==` as well, so
        // this is the entry the dictionary holds for the key.
        if let newest, nodes.span[newest].key.hasSameCodeUnits(as: key) {
            slot = newest
        } else {
            guard let found = slots[key] else { return nil }
            slot = found
        }
        // Fields read in place through a span (`nodes[slot].field` copied
        // the whole node, key and value retained, to read one of them).
        guard now < nodes.span[slot].expires else {
            remove(slot)
            return nil
        }
        if slot != newest {
            unlink(slot)
            pushNewest(slot)
        }
        return nodes.span[slot].value
    }

    /// Stores `value` until `expires`, replacing any entry for `key` and
    /// evicting the least recently used one when full.
    mutating func insert(_ value: Value, for key: String, expires: Instant) {
        guard capacity > 0 else { return }
        if let slot = slots[key] { remove(slot) }
        if slots.count >= capacity, let oldest { remove(oldest) }
        let node = Node(key: key, value: value, expires: expires, newer: nil, older: nil)
        let slot: Int
        if let reused = freeSlots.popLast() {
            nodes[reused] = node
            slot = reused
        } else {
            nodes.append(node)
            slot = nodes.count - 1
        }
        slots[key] = slot
        pushNewest(slot)
    }

    private mutating func remove(_ slot: Int) {
        unlink(slot)
        slots[nodes[slot].key] = nil
        freeSlots.append(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let (newer, older) = (nodes[slot].newer, nodes[slot].older)
        if let newer { nodes[newer].older = older } else { newest = older }
        if let older { nodes[older].newer = newer } else { oldest = newer }
        nodes[slot].newer = nil
        nodes[slot].older = nil
    }

    private mutating func pushNewest(_ slot: Int) {
        nodes[slot].older = newest
        nodes[slot].newer = nil
        if let newest { nodes[newest].newer = slot }
        newest = slot
        if oldest == nil { oldest = slot }
    }
}
