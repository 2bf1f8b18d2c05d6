/// An image format the resolver recognises by its magic bytes.
///
/// The body decides, never the `Content-Type` header: a server may call
/// anything `image/png`. Only the four formats every iOS version renders in a
/// Communication Notification are known.
public struct AvatarImageType: Sendable, Hashable, CustomStringConvertible {
    /// The media type reported in `AvatarState.ok`, e.g. `image/png`.
    public let mime: String

    private init(mime: String) { self.mime = mime }

    /// PNG: `89 50 4E 47 0D 0A 1A 0A`.
    public static let png = AvatarImageType(mime: "image/png")
    /// JPEG: `FF D8 FF`.
    public static let jpeg = AvatarImageType(mime: "image/jpeg")
    /// GIF: `GIF87a` or `GIF89a`.
    public static let gif = AvatarImageType(mime: "image/gif")
    /// WebP: `RIFF` then four length bytes then `WEBP`.
    public static let webp = AvatarImageType(mime: "image/webp")

    /// Every known type.
    public static let all: Set<AvatarImageType> = [.png, .jpeg, .gif, .webp]

    /// The media type.
    public var description: String { mime }

    /// The type whose signature `bytes` starts with, if any.
    static func sniff(_ bytes: [UInt8]) -> AvatarImageType? {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { return .gif }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), bytes[8..<12].elementsEqual("WEBP".utf8) { return .webp }
        return nil
    }
}
