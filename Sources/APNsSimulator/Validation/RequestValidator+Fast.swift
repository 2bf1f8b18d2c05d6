/// `RequestValidator`'s fast path: the usual valid request checked on the
/// header bytes (`APNsHeaderIndex`), building no String, Set or Dictionary
/// (the answer's `apns-id` aside), the payload read for its shape only.
///
/// It answers only what the strict path answers for the same request and
/// token state: `.valid`, or the provider token's rejection once every other
/// check passes (the token check comes fourth in Apple's order, so it wins
/// over any later one only when there is none to lose to). Any other
/// failure, and anything unusual (a non-ASCII value or topic list, a
/// 19-digit expiration, a field twice), returns `nil` before the token
/// state is touched, and the strict path decides: every rejection and
/// reason stays its own. Tests check that the two agree.
extension RequestValidator {
    /// The verdict on the usual request, or `nil` for the strict path.
    func fastVerdict(
        _ request: ReceivedRequest,
        tokens: inout ProviderTokenVerifier,
        registeredTopic: (_ lowercasedToken: () -> String) -> String?,
        now: Double
    ) -> RequestVerdict? {
        guard let asciiTopics else { return nil }
        return request.fields.bytes.withUnsafeBufferPointer { all -> RequestVerdict? in
            guard let index = APNsHeaderIndex(request.fields, bytes: all) else { return nil }  // includes check 3
            let entries = request.fields.entries
            func value(_ name: APNsHeaderIndex.Name) -> UnsafeBufferPointer<UInt8>? {
                index[name].map { UnsafeBufferPointer(rebasing: all[entries[$0].valueRange]) }
            }

            guard let method = value(.method), TextBytes.equal(method, "POST"),
                  let path = value(.path), TextBytes.hasPrefix(path, "/3/device/") else { return nil }
            let deviceToken = UnsafeBufferPointer(rebasing: path[Self.devicePathPrefix.utf8.count...])
            guard Self.isWellFormedDeviceToken(deviceToken),
                  let topic = value(.topic), let bundle = Self.bundleID(of: topic, in: asciiTopics) else { return nil }
            let suffix = UnsafeBufferPointer(rebasing: topic[bundle.count...])

            var isVoIP = false
            let pushType = value(.pushType)
            if let pushType {
                guard APNsHeaderRules.pairs(pushType: pushType, withSuffix: suffix) else { return nil }  // a known type, paired
                isVoIP = TextBytes.equal(pushType, "voip")
            }
            var priority = APNsHeaderRules.defaultPriority
            if let text = value(.priority) {
                if TextBytes.equal(text, "5") {
                    priority = 5
                } else if TextBytes.equal(text, "1") {
                    priority = 1
                } else if !TextBytes.equal(text, "10") {
                    return nil
                }
            }
            guard APNsHeaderRules.allows(priority: priority, pushType: pushType, contentAvailableOnly: false) else { return nil }
            let sentID = value(.id)
            if let sentID, !APNsIdentifier.isValid(sentID) { return nil }
            if let collapseID = value(.collapseID), collapseID.count > Self.collapseIDLimit || !TextBytes.isASCII(collapseID) {
                return nil
            }
            var expiration: Int64?
            if let text = value(.expiration) {
                guard let seconds = Self.decimal(text) else { return nil }
                expiration = seconds
            }
            guard request.bodyLength > 0, request.bodyLength <= (isVoIP ? Self.voipPayloadLimit : Self.payloadLimit),
                  case .object(let hasAPSObject, let aps, _)? = APNsPayloadShape.parse(request.body),
                  hasAPSObject || !requiresAPSDictionary,
                  APNsHeaderRules.allows(priority: priority, pushType: pushType, contentAvailableOnly: aps.isContentAvailableOnly)
            else { return nil }
            if var bound = registeredTopic({ Self.lowercased(deviceToken) }),
               !bound.withUTF8({ TextBytes.equal($0, bundle) }) {
                return nil
            }

            let answerID = sentID.map { String(decoding: $0, as: UTF8.self) } ?? APNsIdentifier.generate()
            if let tokenProblem = tokens.check(authorizationBytes: value(.authorization), now: now) {
                return .rejected(tokenProblem, apnsID: answerID)
            }
            return .valid(ValidatedNotification(request: request, apnsID: answerID, apnsIDWasSent: sentID != nil,
                                                priority: priority, expiration: expiration))
        }
    }

    /// `bundleID(of:)` for an ASCII topic against an all-ASCII topic list,
    /// where byte equality is String equality.
    private static func bundleID(of topic: UnsafeBufferPointer<UInt8>, in topics: [[UInt8]]) -> UnsafeBufferPointer<UInt8>? {
        guard !topic.isEmpty, TextBytes.isASCII(topic) else { return nil }
        func isConfigured(_ bundle: UnsafeBufferPointer<UInt8>) -> Bool {
            topics.contains { $0.withUnsafeBufferPointer { TextBytes.equal(bundle, $0) } }
        }
        if isConfigured(topic) { return topic }
        for suffix in topicSuffixBytes where topic.count >= suffix.count {
            let split = topic.count - suffix.count
            guard suffix.withUnsafeBufferPointer({ TextBytes.equal(UnsafeBufferPointer(rebasing: topic[split...]), $0) }) else {
                continue
            }
            let bundle = UnsafeBufferPointer(rebasing: topic[..<split])
            if isConfigured(bundle) { return bundle }
        }
        return nil
    }

    /// 1 to 18 decimal digits (never overflowing), else `nil`.
    private static func decimal(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard (1...18).contains(text.count) else { return nil }
        var value: Int64 = 0
        for byte in text {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        return value
    }

    /// An ASCII text lowercased, as `String.lowercased()` does for ASCII.
    private static func lowercased(_ ascii: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: ascii.count) { buffer in
            for (offset, byte) in ascii.enumerated() { buffer[offset] = (0x41...0x5A).contains(byte) ? byte + 0x20 : byte }
            return ascii.count
        }
    }

    private static let topicSuffixBytes = topicSuffixes.map { Array($0.utf8) }
}
