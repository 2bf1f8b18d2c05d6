/// The body shown for a non-text message sent without text
/// ("You received a video"), in English, Vietnamese and French (API.md table).
public enum Placeholders {
    /// The placeholder for `kind` in `language` (a supported primary subtag);
    /// nil for `.text`, which has none.
    public static func text(for kind: MessageKind, language: String) -> String? {
        switch language {
        case "vi": return vietnamese(kind)
        case "fr": return french(kind)
        default: return english(kind)
        }
    }

    private static func english(_ kind: MessageKind) -> String? {
        switch kind {
        case .text: return nil
        case .image: return "You received a photo"
        case .video: return "You received a video"
        case .audio: return "You received a voice message"
        case .file: return "You received a file"
        case .sticker: return "You received a sticker"
        case .location: return "You received a location"
        }
    }

    private static func vietnamese(_ kind: MessageKind) -> String? {
        switch kind {
        case .text: return nil
        case .image: return "Bạn nhận được hình ảnh"
        case .video: return "Bạn nhận được video"
        case .audio: return "Bạn nhận được tin nhắn thoại"
        case .file: return "Bạn nhận được tệp"
        case .sticker: return "Bạn nhận được nhãn dán"
        case .location: return "Bạn nhận được vị trí"
        }
    }

    private static func french(_ kind: MessageKind) -> String? {
        switch kind {
        case .text: return nil
        case .image: return "Vous avez reçu une photo"
        case .video: return "Vous avez reçu une vidéo"
        case .audio: return "Vous avez reçu un message vocal"
        case .file: return "Vous avez reçu un fichier"
        case .sticker: return "Vous avez reçu un autocollant"
        case .location: return "Vous avez reçu une position"
        }
    }
}
