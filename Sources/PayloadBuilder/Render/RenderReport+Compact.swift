/// The compact `/v1/render` answer, written straight into bytes: every key
/// is a literal, every string is escaped once, nothing tracks nesting, and
/// the bytes go through a `ByteWriter`.
///
/// `RenderReportTests` checks it against the report written out member by
/// member with `JSONWriter`.
extension RenderReport {
    static func compactJSON(_ rendered: RenderedEvent) -> [UInt8] {
        // Usually enough, so the answer is written in place; more is copied once.
        let estimate = rendered.requests.reduce(1024) { $0 + $1.body.count + 512 }
        return [UInt8](estimatedCount: estimate) { out in write(rendered, to: &out) }
    }

    private static func write(_ rendered: RenderedEvent, to out: inout ByteWriter) {
        out.appendLiteral("{\"event_id\":")
        out.appendJSONString(rendered.eventID)
        out.appendLiteral(",\"requests\":[")
        // Read in place through a span, not copied out of the array
        // (which would retain and release every field of every request).
        do {
            let requests = rendered.requests.span
            for index in requests.indices {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                appendCompact(requests[index], to: &out)
            }
        }
        out.appendLiteral("],\"skipped\":[")
        appendSkipped(rendered.skipped, to: &out)
        out.appendLiteral("],\"persona\":")
        appendPersonaAndAvatar(rendered.persona, rendered.avatar, to: &out)
    }

    /// The skipped recipients, comma-separated (no brackets).
    static func appendSkipped(_ skipped: [SkippedRecipient], to out: inout ByteWriter) {
        for (index, skip) in skipped.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.appendLiteral("{\"platform\":")
            appendPlatform(skip.platform, to: &out)
            out.appendLiteral(",\"token\":")
            out.appendJSONString(skip.token)
            out.appendLiteral(",\"reason\":")
            out.appendJSONString(skip.reason)
            if let plaintext = skip.plaintext {
                // Compact JSON the renderer wrote: embedded as it is.
                out.appendLiteral(",\"plaintext\":")
                out.append(plaintext)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// The persona's object, `,"avatar":`, the avatar's object, and the
    /// report's closing brace.
    private static func appendPersonaAndAvatar(_ persona: borrowing CommunicationPersona, _ avatar: AvatarState,
                                       to out: inout ByteWriter) {
        let senderAvatar = appendCompact(persona, to: &out)
        out.appendLiteral(",\"avatar\":")
        // The avatar's URL is usually the sender's, just written: copied, not escaped again.
        appendCompact(avatar, written: senderAvatar.map { (persona.sender.avatarURL, $0) }, to: &out)
        out.append(UInt8(ascii: "}"))
    }

    static func appendPlatform(_ platform: Platform, to out: inout ByteWriter) {
        switch platform {
        case .fcm: out.appendLiteral("\"fcm\"")
        case .apns: out.appendLiteral("\"apns\"")
        case .fcmWeb: out.appendLiteral("\"fcm_web\"")
        case .webpush: out.appendLiteral("\"webpush\"")
        }
    }

    static func appendCompact(_ request: borrowing ProviderRequest, to out: inout ByteWriter) {
        out.appendLiteral("{\"platform\":")
        appendPlatform(request.platform, to: &out)
        out.appendLiteral(",\"token\":")
        out.appendJSONString(request.token)
        // `method` is always POST.
        out.appendLiteral(",\"method\":\"POST\",\"url\":\"")
        // `url` is origin + path; escaping is per byte, so the halves are escaped apart.
        appendOrigin(request.origin, of: request.platform, to: &out)
        out.appendJSONStringContent(request.path)
        out.appendLiteral("\",\"headers\":{\"authorization\":\"")
        out.appendLiteral(request.authorizationScheme)
        out.appendLiteral(" <redacted>\"")
        do {
            let headers = request.headers.span
            for index in headers.indices {
                out.append(UInt8(ascii: ","))
                appendHeader(headers[index], at: index, of: request.platform, to: &out)
            }
        }
        out.appendLiteral("},\"body\":")
        out.append(request.body)
        out.append(UInt8(ascii: "}"))
    }

    /// `"name":"value"` for one header. The renderer writes its headers in
    /// a fixed order: a name equal to the renderer's at its place, and the
    /// two values that never vary (`application/json`, `alert`), are
    /// written as literals after a compare with a string literal (two words
    /// when both are the same literal); anything else (a renamed, reordered
    /// or added header) is escaped like every other string.
    @inline(__always)
    private static func appendHeader(_ header: borrowing ProviderRequest.Header, at index: Int, of platform: Platform,
                                     to out: inout ByteWriter) {
        switch (platform, index) {
        case (.fcm, 0) where header.name == "content-type": out.appendLiteral("\"content-type\":")
        case (.apns, 0) where header.name == "apns-topic": out.appendLiteral("\"apns-topic\":")
        case (.apns, 1) where header.name == "apns-push-type": out.appendLiteral("\"apns-push-type\":")
        case (.apns, 2) where header.name == "apns-priority": out.appendLiteral("\"apns-priority\":")
        case (.apns, 3) where header.name == "apns-expiration": out.appendLiteral("\"apns-expiration\":")
        case (.apns, 4) where header.name == "apns-id": out.appendLiteral("\"apns-id\":")
        case (.apns, 5) where header.name == "apns-collapse-id": out.appendLiteral("\"apns-collapse-id\":")
        default:
            out.appendJSONString(header.name)
            out.append(UInt8(ascii: ":"))
        }
        switch (platform, index) {
        case (.fcm, 0) where header.value == "application/json": out.appendLiteral("\"application/json\"")
        case (.apns, 1) where header.value == "alert": out.appendLiteral("\"alert\"")
        default: out.appendJSONString(header.value)
        }
    }

    /// Returns where the sender's avatar URL was written, quoted, if it was.
    private static func appendCompact(_ persona: borrowing CommunicationPersona, to out: inout ByteWriter) -> Range<Int>? {
        out.appendLiteral("{\"sender\":")
        let senderAvatar = appendCompact(persona.sender, to: &out)
        out.appendLiteral(",\"me\":")
        _ = appendCompact(persona.me, to: &out)
        out.appendLiteral(",\"conversation_id\":")
        out.appendJSONString(persona.conversationID)
        out.appendLiteral(",\"group_name\":")
        appendOptional(persona.groupName, to: &out)
        out.appendLiteral(",\"content\":")
        out.appendJSONString(persona.content)
        out.append(UInt8(ascii: "}"))
        return senderAvatar
    }

    /// Returns where the avatar URL was written, quoted, if it was.
    private static func appendCompact(_ person: borrowing CommunicationPersona.Person, to out: inout ByteWriter) -> Range<Int>? {
        out.appendLiteral("{\"id\":")
        appendOptional(person.id, to: &out)
        out.appendLiteral(",\"display_name\":")
        appendOptional(person.displayName, to: &out)
        // Always `unknown` from the renderer: a literal, after a compare of two small strings.
        if person.handleType == "unknown" {
            out.appendLiteral(",\"handle_type\":\"unknown\"")
        } else {
            out.appendLiteral(",\"handle_type\":")
            out.appendJSONString(person.handleType)
        }
        out.appendLiteral(person.isMe ? ",\"is_me\":true" : ",\"is_me\":false")
        var written: Range<Int>?
        if let avatar = person.avatarURL {
            out.appendLiteral(",\"avatar\":")
            let start = out.count
            out.appendJSONString(avatar)
            written = start..<out.count
        }
        out.append(UInt8(ascii: "}"))
        return written
    }

    /// Writes an origin: the providers' usual ones (the configuration's
    /// defaults) as literals after a compare, any other escaped.
    @inline(__always)
    static func appendOrigin(_ origin: String, of platform: Platform, to out: inout ByteWriter) {
        switch platform {
        // Bytes compared (lengths first): `==` on two strings that are not
        // the same literal takes the slow, Unicode-aware path, every device.
        case .apns where origin.hasSameCodeUnits(as: APNsTarget.production): out.appendLiteral("https://api.push.apple.com")
        case .apns where origin.hasSameCodeUnits(as: APNsTarget.sandbox): out.appendLiteral("https://api.sandbox.push.apple.com")
        case .fcm where origin.hasSameCodeUnits(as: FCMTarget.production): out.appendLiteral("https://fcm.googleapis.com")
        default: out.appendJSONStringContent(origin)
        }
    }

    /// `written` is a string already written quoted, and where: a URL with
    /// the same bytes is copied from there rather than escaped again (the
    /// same bytes, not `==`, which also takes canonically equivalent text).
    static func appendCompact(_ avatar: AvatarState, written: (text: String?, quoted: Range<Int>)?,
                                      to out: inout ByteWriter) {
        func appendURL(_ url: String) {
            if let written, let text = written.text, url.hasSameCodeUnits(as: text) {
                out.appendCopy(of: written.quoted)
            } else {
                out.appendJSONString(url)
            }
        }
        switch avatar {
        case .none:
            out.appendLiteral("{\"state\":\"none\",\"reason\":\"the event has no sender.avatar_url\"}")
        case let .unchecked(url):
            out.appendLiteral("{\"state\":\"none\",\"reason\":\"not checked: rendered without the avatar resolver, URL forwarded as given\",\"url\":")
            appendURL(url)
            out.append(UInt8(ascii: "}"))
        case let .ok(url, mime, bytes, sha256):
            out.appendLiteral("{\"state\":\"ok\",\"reason\":null,\"url\":")
            appendURL(url)
            out.appendLiteral(",\"mime\":")
            out.appendJSONString(mime)
            out.appendLiteral(",\"bytes\":")
            out.appendDecimal(Int64(bytes))
            out.appendLiteral(",\"sha256\":")
            out.appendJSONString(sha256)
            out.append(UInt8(ascii: "}"))
        case let .dropped(url, reason):
            out.appendLiteral("{\"state\":\"dropped\",\"reason\":")
            out.appendJSONString(reason)
            out.appendLiteral(",\"url\":")
            appendURL(url)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func appendOptional(_ text: String?, to out: inout ByteWriter) {
        if let text { out.appendJSONString(text) } else { out.appendLiteral("null") }
    }
}
