/// What the APNs payload checks need from a body, read by the same strict
/// parser as every other JSON text but without building a tree: whether it
/// is an object, whether its `aps` member is an object, and what that `aps`
/// says about alerting (`APSFacts`). Malformed JSON is still refused
/// (`parse` returns `nil`).
///
/// For a repeated key the last value counts, as in `SimulatorJSON` and
/// `OrderedJSON`.
enum APNsPayloadShape: StrictJSONBuildable {
    /// What an object's own members say, as the content-available-only
    /// rule needs it (PROTOCOLS.md A2, B2: a data-only push must be sent
    /// at priority 5).
    struct APSFacts: Equatable, Sendable {
        /// `content-available` is the number `1`.
        var contentAvailable = false
        /// `alert`, `badge` or `sound` is present (any value).
        var alerts = false

        /// A push that only wakes the app: content-available and nothing shown.
        var isContentAvailableOnly: Bool { contentAvailable && !alerts }
    }

    /// An object; `hasAPSObject` when its `aps` member is an object, `aps`
    /// that member's facts, `own` the object's own.
    case object(hasAPSObject: Bool, aps: APSFacts, own: APSFacts)
    /// The number literal `1`.
    case one
    /// Any other value.
    case other

    /// The key names the facts single out.
    enum Key {
        case aps, contentAvailable, alerting, other
    }

    /// An object while it is read.
    struct Members {
        var hasAPSObject = false
        var aps = APSFacts()
        var own = APSFacts()
    }

    /// The shape of a complete JSON text, or `nil` when it is malformed.
    static func parse(_ bytes: [UInt8]) -> APNsPayloadShape? {
        StrictJSONParser<APNsPayloadShape>.parse(bytes)
    }

    static func makeKey(_ utf8: UnsafeBufferPointer<UInt8>) -> Key {
        if TextBytes.equal(utf8, "aps") { return .aps }
        if TextBytes.equal(utf8, "content-available") { return .contentAvailable }
        if TextBytes.equal(utf8, "alert") || TextBytes.equal(utf8, "badge") || TextBytes.equal(utf8, "sound") {
            return .alerting
        }
        return .other
    }
    static func beginObject() -> Members { Members() }
    static func add(_ key: Key, _ value: APNsPayloadShape, to members: inout Members) {
        switch key {
        case .aps:
            if case .object(_, _, let own) = value {
                members.hasAPSObject = true
                members.aps = own
            } else {
                members.hasAPSObject = false
                members.aps = APSFacts()
            }
        case .contentAvailable:
            if case .one = value { members.own.contentAvailable = true } else { members.own.contentAvailable = false }
        case .alerting:
            members.own.alerts = true
        case .other:
            break
        }
    }
    static func endObject(_ members: consuming Members) -> APNsPayloadShape {
        .object(hasAPSObject: members.hasAPSObject, aps: members.aps, own: members.own)
    }
    static func beginArray() {}
    static func add(_ element: APNsPayloadShape, to array: inout ()) {}
    static func endArray(_ array: consuming ()) -> APNsPayloadShape { .other }
    static func makeString(_ utf8: UnsafeBufferPointer<UInt8>) -> APNsPayloadShape { .other }
    static func makeNumber(_ literal: UnsafeBufferPointer<UInt8>) -> APNsPayloadShape {
        literal.count == 1 && literal[0] == UInt8(ascii: "1") ? .one : .other
    }
    static func makeBool(_ value: Bool) -> APNsPayloadShape { .other }
    static func makeNull() -> APNsPayloadShape { .other }
}
