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
        decodeFastIndexed(body).map { ($0.event, config.apps[$0.appIndex]) }
    }

    /// `decodeFast(_:)` with the app as its index in `config.apps`.
    func decodeFastIndexed(_ body: [UInt8]) -> (event: Event, appIndex: Int)? {
        body.withUnsafeBufferPointer { decodeFast(buffer: $0) }
    }

    private func decodeFast(buffer: UnsafeBufferPointer<UInt8>) -> (event: Event, appIndex: Int)? {
        // Read in place in memory of its own and moved out: a local `var`
        // lent to the reader is copied out (every field retained) and then
        // destroyed.
        withUnsafeTemporaryAllocation(of: Event.self, capacity: 1) { slot in
            let event = slot.baseAddress!
            event.initialize(to: EventFastReader.emptyEvent)
            guard let app = read(buffer, into: &event.pointee) else {
                event.deinitialize(count: 1)
                return nil
            }
            return (event.move(), app)
        }
    }

    /// Reads `buffer` into `event` (empty) and finds its app; nil to step aside.
    private func read(_ buffer: UnsafeBufferPointer<UInt8>, into event: inout Event) -> Int? {
        var reader = EventFastReader(buffer, limits: config.limits)
        guard reader.read(into: &event), let app = appAccepting(event) else { return nil }
        return app
    }

    /// The index of the app `event` names, when it has credentials for
    /// every recipient's platform and none of the event's data keys is
    /// refused. The profile is borrowed where it is, not copied.
    private func appAccepting(_ event: borrowing Event) -> Int? {
        guard let index = try? config.appIndex(named: event.app) else { return nil }
        // Each field read where the profile is: passed on, or read as
        // `apps[index].field`, the whole profile was copied (every string
        // and array retained) and then destroyed.
        let (hasAPNs, hasFCM) = config.apps.withUnsafeBufferPointer { ($0[index].apns != nil, $0[index].fcm != nil) }
        for recipient in event.recipients {
            switch recipient.platform {
            case .apns where !hasAPNs, .fcm where !hasFCM: return nil
            default: break
            }
        }
        for entry in event.data
        where DataKeyNames.problem(with: entry.key) != nil || config.apps[index].dataKeys.isGatewayKey(entry.key) {
            return nil
        }
        return index
    }
}
