/// The decoder fast path's lookups of a platform or message kind by name:
/// the synthesized `init(rawValue:)` goes through the runtime's
/// `_findStringSwitchCase`, which makes a `String` of every case name it
/// tries; a `switch` over the literals compares with the same `==`
/// (canonical equivalence), so the answer is the same for every string.
/// `CaseNamesTests` checks both against `init(rawValue:)`.
extension Platform {
    /// `Platform(rawValue: name)`.
    init?(named name: String) {
        switch name {
        case "fcm": self = .fcm
        case "apns": self = .apns
        default: return nil
        }
    }
}

extension MessageKind {
    /// `MessageKind(rawValue: name)`.
    init?(named name: String) {
        switch name {
        case "text": self = .text
        case "image": self = .image
        case "video": self = .video
        case "audio": self = .audio
        case "file": self = .file
        case "sticker": self = .sticker
        case "location": self = .location
        default: return nil
        }
    }
}
