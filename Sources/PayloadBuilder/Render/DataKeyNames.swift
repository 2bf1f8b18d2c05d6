/// The data keys the gateway sets on every notification, under the names an
/// app expects.
///
/// The defaults are the chat SDK's (`ps_thread_id`, `sender_name`, …). An app
/// can rename a key (`ps_thread_id` → `conversationId`) or leave it out; a new
/// name is checked against FCM's reserved keys and the APNs payload's own.
public struct DataKeyNames: Sendable, Equatable {
    /// The keys the gateway fills, in the order they are written.
    public enum Standard: String, Sendable, CaseIterable {
        case title, text
        case senderID = "sender_id"
        case senderName = "sender_name"
        case avatarURL = "avatar_url"
        case isRichText = "is_rtf"
        case threadID = "ps_thread_id"
        case messageID = "ps_message_id"

        /// `allCases`, made once (the synthesized `allCases` builds a new array per call).
        static let ordered = allCases
    }

    /// Wire name per standard key, in `Standard.allCases` order; nil = omitted.
    public private(set) var wireNames: [String?]
    /// `wireNames` escaped and quoted, made with them: the renderer copies
    /// these rather than escaping the same names for every event.
    private(set) var quotedWireNames: QuotedNames

    public init() {
        wireNames = Standard.allCases.map(\.rawValue)
        quotedWireNames = QuotedNames(wireNames)
    }

    /// Names escaped and quoted, one after another in one array (no array
    /// per name to retain while copying them): `range(at:)` of a name left
    /// out is empty.
    struct QuotedNames: Sendable, Equatable {
        let bytes: [UInt8]
        private let ranges: [Range<Int>]

        init(_ names: [String?]) {
            var bytes: [UInt8] = []
            ranges = names.map { name in
                let start = bytes.count
                if let name { JSONWriter.appendEscaped(name, to: &bytes) }
                return start..<bytes.count
            }
            self.bytes = bytes
        }

        var count: Int { ranges.count }

        func range(at index: Int) -> Range<Int> { ranges[index] }
    }

    /// Renames keys (`nil` leaves the key out). Refuses reserved or duplicate names.
    public init(renaming renames: [(standard: String, wireName: String?)]) throws(ConfigError) {
        self.init()
        for (standardName, wireName) in renames {
            guard let key = Standard(rawValue: standardName) else {
                let known = Standard.allCases.map(\.rawValue).joined(separator: ", ")
                throw ConfigError(setting: "data_keys.\(standardName)", "not a gateway data key (known: \(known))")
            }
            if let wireName, let problem = DataKeyNames.problem(with: wireName) {
                throw ConfigError(setting: "data_keys.\(standardName)", problem)
            }
            wireNames[Standard.allCases.firstIndex(of: key)!] = wireName
        }
        var seen = Set<String>()
        for name in wireNames.compactMap({ $0 }) where !seen.insert(name).inserted {
            throw ConfigError(setting: "data_keys", "two data keys would both be named \"\(name)\"")
        }
        quotedWireNames = QuotedNames(wireNames)
    }

    public func wireName(_ key: Standard) -> String? {
        wireNames[Standard.ordered.firstIndex(of: key)!]
    }

    /// True when `name` is one of the keys the gateway itself writes.
    public func isGatewayKey(_ name: String) -> Bool {
        wireNames.contains(name)
    }

    /// Why `key` cannot be a data key, or nil. FCM refuses `from`,
    /// `message_type` and keys starting with `google` or `gcm` (PROTOCOLS.md
    /// B3, case-insensitive); the APNs payload reserves `aps` and the
    /// notifee block beside it.
    public static func problem(with key: String) -> String? {
        if key.isEmpty { return "a data key must not be empty" }
        let lower = key.lowercased()
        if lower == "from" || lower == "message_type" || lower.hasPrefix("google") || lower.hasPrefix("gcm") {
            return "\"\(key)\" is reserved by FCM (from, message_type, google*, gcm*)"
        }
        if key == "aps" || key == "notifee_options" {
            return "\"\(key)\" is reserved in the APNs payload"
        }
        return nil
    }
}
