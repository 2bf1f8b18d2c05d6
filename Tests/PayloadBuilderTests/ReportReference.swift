@testable import PayloadBuilder

/// The `/v1/render` answer of API.md written out member by member with
/// `JSONWriter`: the plain rules `RenderReport`'s compact writer must match
/// byte for byte.
enum ReportReference {
    static func json(_ rendered: RenderedEvent) -> [UInt8] {
        var writer = JSONWriter(capacity: 2048 * max(1, rendered.requests.count))
        writer.beginObject()
        writer.member("event_id", rendered.eventID)
        writer.key("requests")
        writer.beginArray()
        for request in rendered.requests { write(request, to: &writer) }
        writer.endArray()
        writer.key("skipped")
        writer.beginArray()
        for skip in rendered.skipped {
            writer.beginObject()
            writer.member("platform", skip.platform.rawValue)
            writer.member("token", skip.token)
            writer.member("reason", skip.reason)
            if let plaintext = skip.plaintext {
                writer.key("plaintext")
                writer.raw(plaintext)
            }
            writer.endObject()
        }
        writer.endArray()
        writer.key("persona")
        write(rendered.persona, to: &writer)
        writer.key("avatar")
        write(rendered.avatar, to: &writer)
        writer.endObject()
        return writer.bytes
    }

    private static func write(_ request: ProviderRequest, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("platform", request.platform.rawValue)
        writer.member("token", request.token)
        writer.member("method", request.method)
        writer.member("url", request.url)
        writer.key("headers")
        writer.beginObject()
        writer.member("authorization", "bearer <redacted>")
        for header in request.headers { writer.member(header.name, header.value) }
        writer.endObject()
        writer.key("body")
        writer.raw(Array(request.body))
        writer.endObject()
    }

    private static func write(_ persona: CommunicationPersona, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("sender")
        write(persona.sender, to: &writer)
        writer.key("me")
        write(persona.me, to: &writer)
        writer.member("conversation_id", persona.conversationID)
        writer.key("group_name")
        if let group = persona.groupName { writer.string(group) } else { writer.null() }
        writer.member("content", persona.content)
        writer.endObject()
    }

    private static func write(_ person: CommunicationPersona.Person, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        if let id = person.id { writer.string(id) } else { writer.null() }
        writer.key("display_name")
        if let name = person.displayName { writer.string(name) } else { writer.null() }
        writer.member("handle_type", person.handleType)
        writer.key("is_me")
        writer.bool(person.isMe)
        if let avatar = person.avatarURL { writer.member("avatar", avatar) }
        writer.endObject()
    }

    private static func write(_ avatar: AvatarState, to writer: inout JSONWriter) {
        writer.beginObject()
        switch avatar {
        case .none:
            writer.member("state", "none")
            writer.member("reason", "the event has no sender.avatar_url")
        case let .unchecked(url):
            writer.member("state", "none")
            writer.member("reason", "not checked: rendered without the avatar resolver, URL forwarded as given")
            writer.member("url", url)
        case let .ok(url, mime, bytes, sha256):
            writer.member("state", "ok")
            writer.key("reason")
            writer.null()
            writer.member("url", url)
            writer.member("mime", mime)
            writer.member("bytes", Int64(bytes))
            writer.member("sha256", sha256)
        case let .dropped(url, reason):
            writer.member("state", "dropped")
            writer.member("reason", reason)
            writer.member("url", url)
        }
        writer.endObject()
    }
}
