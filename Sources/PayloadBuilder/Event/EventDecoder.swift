/// Turns a request body into a validated `Event`, enforcing every rule of
/// API.md and naming the field of the first rule broken.
///
/// The body is read in one pass (`EventReader`), members in document order;
/// then the rules that depend on the app the event names are applied: the
/// app must be configured, have credentials for each recipient's platform,
/// and not write any of the event's data keys itself.
public struct EventDecoder: Sendable {
    public let config: RenderConfig

    public init(config: RenderConfig) {
        self.config = config
    }

    /// Decodes and validates `body`; also resolves the app the event is for.
    public func decode(_ body: [UInt8]) throws(EventError) -> (event: Event, app: AppProfile) {
        let (event, appIndex) = try decodeIndexed(body)
        return (event, config.apps[appIndex])
    }

    /// `decode(_:)`, with the app as its index in `config.apps`: only a
    /// caller that needs its own copy of the profile copies it out
    /// (`EventRenderer.renderReport(_:appIndex:…)` reads it in place).
    public func decodeIndexed(_ body: [UInt8]) throws(EventError) -> (event: Event, appIndex: Int) {
        if body.count > config.limits.maximumBodyBytes {
            throw EventError(.bodyTooLarge, field: nil,
                             "the body is \(body.count) bytes; at most \(config.limits.maximumBodyBytes) are accepted")
        }
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            throw EventError(.emptyBody, field: nil, "the request body is empty: send one event as a JSON object")
        }
        let limits = config.limits
        let event = try JSONScanner.scanning(body) { scanner throws(EventError) in
            var reader = EventReader(scanner, limits: limits)
            return try reader.read()
        }
        let appIndex = try appIndex(accepting: event)
        return (event, appIndex)
    }

    /// The index of the app `event` names, once it is known to have
    /// credentials for every recipient's platform and to write none of the
    /// event's data keys itself.
    private func appIndex(accepting event: borrowing Event) throws(EventError) -> Int {
        let index = try config.appIndex(named: event.app)
        let hasAPNs = config.apps[index].apns != nil, hasFCM = config.apps[index].fcm != nil
        for entry in event.data where config.apps[index].dataKeys.isGatewayKey(entry.key) {
            throw EventError(.invalidEvent, at: JSONPath([.key("data"), .key(entry.key)]),
                             "\"\(entry.key)\" is set by the gateway itself; use another key")
        }
        for (position, recipient) in event.recipients.enumerated() {
            // A `webpush` recipient is not refused here: the renderer answers
            // it per device (`SkippedRecipient.platformNotConfigured`), so the
            // event's other devices are sent.
            switch recipient.platform {
            case .apns where !hasAPNs, .fcm where !hasFCM, .fcmWeb where !hasFCM:
                throw EventError(.invalidEvent, at: JSONPath([.key("recipients"), .index(position), .key("platform")]),
                                 "the app \"\(config.apps[index].name)\" has no \(recipient.platform.deliveredBy.rawValue) credentials configured")
            default: break
            }
        }
        return index
    }
}
