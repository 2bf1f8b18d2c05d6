/// What the APNs payload checks need from a body, read by the same strict
/// parser as every other JSON text but without building a tree: whether it
/// is an object, and whether its `aps` member is an object. Malformed JSON
/// is still refused (`parse` returns `nil`).
///
/// For a repeated `aps` key the last value counts, as in `SimulatorJSON`.
enum APNsPayloadShape: StrictJSONBuildable {
    /// An object; `hasAPSObject` when its `aps` member is an object.
    case object(hasAPSObject: Bool)
    /// Any other value.
    case other

    /// The shape of a complete JSON text, or `nil` when it is malformed.
    static func parse(_ bytes: [UInt8]) -> APNsPayloadShape? {
        StrictJSONParser<APNsPayloadShape>.parse(bytes)
    }

    /// Whether the key is `aps`.
    static func makeKey(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        utf8.count == 3 && utf8[0] == UInt8(ascii: "a") && utf8[1] == UInt8(ascii: "p") && utf8[2] == UInt8(ascii: "s")
    }
    /// Whether the last `aps` member so far is an object.
    static func beginObject() -> Bool { false }
    static func add(_ isAPS: Bool, _ value: APNsPayloadShape, to hasAPSObject: inout Bool) {
        if isAPS { hasAPSObject = value.isObject }
    }
    static func endObject(_ hasAPSObject: consuming Bool) -> APNsPayloadShape { .object(hasAPSObject: hasAPSObject) }
    static func beginArray() {}
    static func add(_ element: APNsPayloadShape, to array: inout ()) {}
    static func endArray(_ array: consuming ()) -> APNsPayloadShape { .other }
    static func makeString(_ utf8: UnsafeBufferPointer<UInt8>) -> APNsPayloadShape { .other }
    static func makeNumber(_ literal: UnsafeBufferPointer<UInt8>) -> APNsPayloadShape { .other }
    static func makeBool(_ value: Bool) -> APNsPayloadShape { .other }
    static func makeNull() -> APNsPayloadShape { .other }

    private var isObject: Bool {
        if case .object = self { return true }
        return false
    }
}
