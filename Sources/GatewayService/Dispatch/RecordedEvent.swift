public import PayloadBuilder

/// What is remembered of a dispatched event: each recipient's final result,
/// with the device as a fingerprint of its token. A dedup store never holds
/// device tokens (a shared store would otherwise be a copy of every user's
/// tokens), and a fingerprint is 16 bytes where a token is up to 4 KB.
public struct RecordedEvent: Sendable, Equatable {
    /// One result per device (platform and fingerprint), in the order the
    /// devices were first recorded.
    public var results: [RecordedResult]

    public init(results: [RecordedResult]) {
        self.results = results
    }

    /// Answers from the record every recipient whose device has a settled
    /// result here, wherever it stands in the event; returns whether any was.
    /// Failed results are not answered: a retry sends those again.
    /// `devices[i]` is recipient `i`'s device (fingerprinted once, by the
    /// caller, for this and for `merging`).
    func answer(_ recipients: [Recipient], devices: [RecordedDevice], into results: inout [RecipientResult?]) -> Bool {
        var settled: [RecordedDevice: RecordedResult] = [:]
        for result in self.results where result.isSettled { settled[RecordedDevice(result)] = result }
        guard !settled.isEmpty else { return false }
        var answered = false
        for (index, recipient) in recipients.enumerated() where results[index] == nil {
            guard let result = settled[devices[index]] else { continue }
            results[index] = result.result(token: recipient.token)
            answered = true
        }
        return answered
    }

    /// `recorded` with `results` added: a device's new result replaces its
    /// old one, devices of earlier dispatches that this one did not name are
    /// kept (a retry of another batch of the same event still finds them).
    /// `devices`, when given, holds each result's device, already fingerprinted.
    static func merging(_ recorded: RecordedEvent?, _ results: [RecipientResult], devices: [RecordedDevice]? = nil) -> RecordedEvent {
        (recorded?.results.count ?? 0) + results.count <= smallMerge
            ? mergingByScan(recorded, results, devices: devices) : mergingByIndex(recorded, results, devices: devices)
    }

    /// Up to this many results in all, `merging` finds a device's earlier
    /// result by scanning rather than through a dictionary of positions.
    static let smallMerge = 8

    /// `merging` for a few results: the same rule, each device's earlier
    /// result found by scanning back from the newest (where the index finds
    /// the last position too), with no dictionary to build or hash into.
    static func mergingByScan(_ recorded: RecordedEvent?, _ results: [RecipientResult], devices: [RecordedDevice]? = nil) -> RecordedEvent {
        var merged = recorded?.results ?? []
        merged.reserveCapacity(merged.count + results.count)
        for (index, result) in results.enumerated() {
            let kept = devices.map { RecordedResult(result, device: $0[index].device) } ?? RecordedResult(result)
            if let position = merged.lastIndex(where: { $0.platform == kept.platform && $0.device == kept.device }) {
                merged[position] = kept
            } else {
                merged.append(kept)
            }
        }
        return RecordedEvent(results: merged)
    }

    /// `merging` for any number of results: positions kept in a dictionary.
    static func mergingByIndex(_ recorded: RecordedEvent?, _ results: [RecipientResult], devices: [RecordedDevice]? = nil) -> RecordedEvent {
        var merged = recorded?.results ?? []
        var positions: [RecordedDevice: Int] = [:]
        for (index, result) in merged.enumerated() { positions[RecordedDevice(result)] = index }
        for (index, result) in results.enumerated() {
            let kept = devices.map { RecordedResult(result, device: $0[index].device) } ?? RecordedResult(result)
            if let position = positions[RecordedDevice(kept)] {
                merged[position] = kept
            } else {
                positions[RecordedDevice(kept)] = merged.count
                merged.append(kept)
            }
        }
        return RecordedEvent(results: merged)
    }
}

/// A device as the dedup record knows it: platform and token fingerprint.
struct RecordedDevice: Hashable {
    let platform: Platform
    let device: DeviceFingerprint

    init(_ result: RecordedResult) {
        platform = result.platform
        device = result.device
    }

    init(_ recipient: Recipient) {
        platform = recipient.platform
        device = DeviceFingerprint(platform: recipient.platform, token: recipient.token)
    }
}

/// One recipient's final result as the dedup window keeps it.
public struct RecordedResult: Sendable, Equatable {
    public var platform: Platform
    public var device: DeviceFingerprint
    public var status: RecipientResult.Status
    public var providerID: String?
    public var reason: String?
    public var retryable: Bool?
    /// `RecipientResult.invalidSince`.
    public var invalidSince: Int64?

    public init(platform: Platform, device: DeviceFingerprint, status: RecipientResult.Status, providerID: String? = nil,
                reason: String? = nil, retryable: Bool? = nil, invalidSince: Int64? = nil) {
        self.platform = platform
        self.device = device
        self.status = status
        self.providerID = providerID
        self.reason = reason
        self.retryable = retryable
        self.invalidSince = invalidSince
    }

    /// What is kept of `result`.
    public init(_ result: RecipientResult) {
        self.init(result, device: DeviceFingerprint(platform: result.platform, token: result.token))
    }

    /// `result`, whose token's fingerprint is `device`.
    init(_ result: RecipientResult, device: DeviceFingerprint) {
        self.init(platform: result.platform, device: device, status: result.status,
                  providerID: result.providerID, reason: result.reason, retryable: result.retryable,
                  invalidSince: result.invalidSince)
    }

    /// Done for good: a retry of the event will not send it again.
    public var isSettled: Bool { status != .failed }

    /// True when this result was recorded for `recipient`'s device.
    public func isFor(_ recipient: Recipient) -> Bool {
        platform == recipient.platform && device == DeviceFingerprint(platform: recipient.platform, token: recipient.token)
    }

    /// The result again, for the device whose token is `token`.
    public func result(token: String) -> RecipientResult {
        RecipientResult(platform: platform, token: token, status: status, providerID: providerID, reason: reason,
                        retryable: retryable, invalidSince: invalidSince)
    }
}

/// A device token's first 128 bits of SHA-256: enough to tell whether a
/// retried event names the same device, without keeping the token. An
/// APNs token is hex, whose case does not matter (the event's own
/// duplicate check ignores it too): it is fingerprinted in lowercase.
public struct DeviceFingerprint: Sendable, Hashable {
    public let high: UInt64
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    public init(platform: Platform, token: String) {
        let hashed = platform == .apns && token.utf8.contains(where: { $0 >= 65 && $0 <= 90 }) ? token.lowercased() : token
        let (high, low) = SHA256.leading128(utf8: hashed)
        self.init(high: high, low: low)
    }
}
