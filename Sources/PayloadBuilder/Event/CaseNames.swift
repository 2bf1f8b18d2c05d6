/// The decoder fast path's lookups of a platform, message kind or priority
/// from a name's UTF-8, byte for byte (the synthesized `init(rawValue:)`
/// would need a `String`, and goes through the runtime's
/// `_findStringSwitchCase`). A string equals one of these names (lowercase ASCII letters and `_`) only when its bytes are the
/// name's: no other scalar decomposes to a lowercase ASCII letter or `_`, so no
/// other string is canonically equivalent. `CaseNamesTests` checks these
/// against `init(rawValue:)` too.
extension Platform {
    /// `Platform(rawValue:)` of the string whose UTF-8 is `name`.
    init?(utf8 name: Span<UInt8>) {
        if CaseName.is(name, "fcm") {
            self = .fcm
        } else if CaseName.is(name, "apns") {
            self = .apns
        } else if CaseName.is(name, "fcm_web") {
            self = .fcmWeb
        } else if CaseName.is(name, "webpush") {
            self = .webpush
        } else {
            return nil
        }
    }
}

extension MessageKind {
    /// `MessageKind(rawValue:)` of the string whose UTF-8 is `name`.
    init?(utf8 name: Span<UInt8>) {
        if CaseName.is(name, "text") {
            self = .text
        } else if CaseName.is(name, "image") {
            self = .image
        } else if CaseName.is(name, "video") {
            self = .video
        } else if CaseName.is(name, "audio") {
            self = .audio
        } else if CaseName.is(name, "file") {
            self = .file
        } else if CaseName.is(name, "sticker") {
            self = .sticker
        } else if CaseName.is(name, "location") {
            self = .location
        } else {
            return nil
        }
    }
}

extension DeliveryPriority {
    /// `DeliveryPriority(rawValue:)` of the string whose UTF-8 is `name`.
    init?(utf8 name: Span<UInt8>) {
        if CaseName.is(name, "high") {
            self = .high
        } else if CaseName.is(name, "normal") {
            self = .normal
        } else {
            return nil
        }
    }
}

/// Byte comparison with a case name.
enum CaseName {
    /// Whether `bytes` are the bytes of `name` (a literal: inlined, its
    /// bytes are constants).
    @inline(__always)
    static func `is`(_ bytes: Span<UInt8>, _ name: String) -> Bool {
        guard bytes.count == name.utf8.count else { return false }
        var offset = 0
        for byte in name.utf8 {
            guard bytes[offset] == byte else { return false }
            offset += 1
        }
        return true
    }
}
