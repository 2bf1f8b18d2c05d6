/// The fast path of `EventDecoder.decode(_:)` for the usual valid event:
/// read straight from the bytes (`EventFastReader`), with no `JSONValue`
/// tree, then checked against the app it names.
///
/// It gives exactly the event and app the tree decoder gives, or nil for any
/// body it does not fully handle, valid or not; the tree decoder then runs
/// unchanged, so every error (code, field, message, and which of several
/// wins) is the tree decoder's. `EventDecoderFastPathTests` and the fuzzer's
/// `fast-decode-agrees` invariant (`PayloadInvariants`) compare the two.
extension EventDecoder {
    /// The event in `body` and its app, or nil to leave `body` to the tree decoder.
    func decodeFast(_ body: [UInt8]) -> (event: Event, app: AppProfile)? {
        let limits = config.limits
        var event = EventFastReader.emptyEvent()
        let read = body.withUnsafeBufferPointer { buffer in
            var reader = EventFastReader(buffer, limits: limits)
            return reader.read(into: &event)
        }
        guard read, let app = try? config.app(named: event.app) else { return nil }
        for recipient in event.recipients {
            switch recipient.platform {
            case .apns where app.apns == nil, .fcm where app.fcm == nil: return nil
            default: break
            }
        }
        for entry in event.data
        where DataKeyNames.problem(with: entry.key) != nil || app.dataKeys.isGatewayKey(entry.key) {
            return nil
        }
        if event.eventID.isEmpty { event.eventID = Concatenation.join(event.conversation.id, ":", event.message.id) }
        return (event, app)
    }
}
