/// Builds one representation of JSON while `StrictJSONParser` reads it, so
/// one strict grammar yields the unordered tree (`SimulatorJSON`, APNs and
/// JWT checks), the ordered tree (`OrderedJSON`, the compact text of an
/// FCM value Google quotes or measures) or only the facts a check needs
/// (`APNsPayloadShape`), without building what nobody reads.
///
/// Strings and keys arrive as UTF-8 that is already valid, with escapes
/// decoded; numbers as their literal text. Those buffers live only for the
/// call. Members and elements arrive in written order; keys may repeat.
protocol StrictJSONBuildable {
    /// What an object key becomes.
    associatedtype Key
    /// An object while its members are read.
    associatedtype ObjectBuilder
    /// An array while its elements are read.
    associatedtype ArrayBuilder

    static func makeKey(_ utf8: UnsafeBufferPointer<UInt8>) -> Key
    static func beginObject() -> ObjectBuilder
    static func add(_ key: Key, _ value: Self, to object: inout ObjectBuilder)
    static func endObject(_ object: consuming ObjectBuilder) -> Self
    static func beginArray() -> ArrayBuilder
    static func add(_ element: Self, to array: inout ArrayBuilder)
    static func endArray(_ array: consuming ArrayBuilder) -> Self
    static func makeString(_ utf8: UnsafeBufferPointer<UInt8>) -> Self
    static func makeNumber(_ literal: UnsafeBufferPointer<UInt8>) -> Self
    static func makeBool(_ value: Bool) -> Self
    static func makeNull() -> Self
}
