/// The FCM v1 `Message` schema (fcm.v1.json, PROTOCOLS.md B2) as the JSON
/// reader sees it: for each object type, its fields and what each holds.
///
/// Field names are accepted in both spellings proto3 JSON accepts: the
/// lowerCamelCase JSON name (`collapseKey`) and the proto field name
/// (`collapse_key`). A name in neither spelling is an unknown field.
struct FCMMessageSchema: Sendable {
    /// What a field holds.
    indirect enum Kind: Sendable {
        case string
        case bool
        /// int32/int64: a JSON integer, or a string holding one.
        case integer
        /// float/double: a JSON number, or a string holding one.
        case number
        /// `google.protobuf.Duration`: `"3.5s"`; negative durations are read
        /// here and refused by FCM's own checks.
        case duration
        /// `repeated google.protobuf.Duration` (`vibrateTimings`).
        case durationList
        /// `google.protobuf.Timestamp`: RFC 3339, `"2026-12-01T05:00:00.5Z"`
        /// (`ProtoJSONFormat.isTimestamp`).
        case timestamp
        /// An enum; `caseInsensitive` for AndroidMessagePriority, which the
        /// SDKs send as `high`/`normal`.
        case enumeration(typeName: String, values: Set<String>, caseInsensitive: Bool)
        /// `map<string, string>`.
        case stringMap
        /// `repeated string`.
        case stringList
        /// A nested message.
        case object(FCMMessageSchema)
        /// `google.protobuf.Struct`: any JSON object.
        case freeObject
    }

    /// The proto type name used in Google's error messages.
    let typeName: String
    private let fields: [String: Kind]
    /// The same fields for `FCMSendScanner`, which looks names up by their
    /// UTF-8 bytes; the two spellings of a field share its bit (at most 64
    /// fields, in name order).
    let scanTable: FCMScanTable

    /// `fields` keyed by lowerCamelCase name; the snake_case names are added.
    init(_ typeName: String, _ fields: [String: Kind]) {
        self.typeName = typeName
        var all = fields
        var entries: [(name: String, spellings: [String], kind: Kind)] = []
        precondition(fields.count <= 64, "one bit per field")
        for (name, kind) in fields.sorted(by: { $0.key < $1.key }) {
            let snake = Self.snakeCase(name)
            all[snake] = kind
            entries.append((name, snake == name ? [name] : [name, snake], kind))
        }
        self.fields = all
        scanTable = FCMScanTable(typeName, entries)
    }

    /// The kind of the field named `name` (either spelling), if known.
    func kind(of name: String) -> Kind? { fields[name] }

    private static func snakeCase(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase {
                result += "_" + character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }

    private static let fcm = "type.googleapis.com/google.firebase.fcm.v1."

    static let notification = FCMMessageSchema(fcm + "Notification", [
        "title": .string, "body": .string, "image": .string,
    ])

    static let color = FCMMessageSchema("type.googleapis.com/google.type.Color", [
        "red": .number, "green": .number, "blue": .number, "alpha": .number,
    ])

    static let lightSettings = FCMMessageSchema(fcm + "LightSettings", [
        "color": .object(color), "lightOnDuration": .duration, "lightOffDuration": .duration,
    ])

    static let androidNotification = FCMMessageSchema(fcm + "AndroidNotification", [
        "title": .string, "body": .string, "icon": .string, "color": .string, "sound": .string, "tag": .string,
        "clickAction": .string, "bodyLocKey": .string, "bodyLocArgs": .stringList, "titleLocKey": .string,
        "titleLocArgs": .stringList, "channelId": .string, "ticker": .string, "sticky": .bool,
        "eventTime": .timestamp, "localOnly": .bool,
        "notificationPriority": .enumeration(typeName: fcm + "AndroidNotification.NotificationPriority",
                                             values: ["PRIORITY_UNSPECIFIED", "PRIORITY_MIN", "PRIORITY_LOW",
                                                      "PRIORITY_DEFAULT", "PRIORITY_HIGH", "PRIORITY_MAX"],
                                             caseInsensitive: false),
        "defaultSound": .bool, "defaultVibrateTimings": .bool, "defaultLightSettings": .bool,
        "vibrateTimings": .durationList,
        "visibility": .enumeration(typeName: fcm + "AndroidNotification.Visibility",
                                   values: ["VISIBILITY_UNSPECIFIED", "PRIVATE", "PUBLIC", "SECRET"], caseInsensitive: false),
        "notificationCount": .integer, "lightSettings": .object(lightSettings), "image": .string,
        "proxy": .enumeration(typeName: fcm + "AndroidNotification.Proxy",
                              values: ["PROXY_UNSPECIFIED", "ALLOW", "DENY", "IF_PRIORITY_LOWERED"], caseInsensitive: false),
        "bypassProxyNotification": .bool,
    ])

    static let androidFcmOptions = FCMMessageSchema(fcm + "AndroidFcmOptions", ["analyticsLabel": .string])

    static let android = FCMMessageSchema(fcm + "AndroidConfig", [
        "collapseKey": .string,
        "priority": .enumeration(typeName: fcm + "AndroidMessagePriority", values: ["NORMAL", "HIGH"], caseInsensitive: true),
        "ttl": .duration, "restrictedPackageName": .string, "data": .stringMap,
        "notification": .object(androidNotification), "fcmOptions": .object(androidFcmOptions),
        "directBootOk": .bool, "bandwidthConstrainedOk": .bool, "restrictedSatelliteOk": .bool,
    ])

    static let apnsFcmOptions = FCMMessageSchema(fcm + "ApnsFcmOptions", ["analyticsLabel": .string, "image": .string])

    static let apns = FCMMessageSchema(fcm + "ApnsConfig", [
        "headers": .stringMap, "payload": .freeObject, "fcmOptions": .object(apnsFcmOptions), "liveActivityToken": .string,
    ])

    static let webpushFcmOptions = FCMMessageSchema(fcm + "WebpushFcmOptions", ["link": .string, "analyticsLabel": .string])

    static let webpush = FCMMessageSchema(fcm + "WebpushConfig", [
        "headers": .stringMap, "data": .stringMap, "notification": .freeObject, "fcmOptions": .object(webpushFcmOptions),
    ])

    static let fcmOptions = FCMMessageSchema(fcm + "FcmOptions", ["analyticsLabel": .string])

    static let message = FCMMessageSchema(fcm + "Message", [
        "name": .string, "data": .stringMap, "notification": .object(notification), "android": .object(android),
        "webpush": .object(webpush), "apns": .object(apns), "fcmOptions": .object(fcmOptions),
        // AndroidConfig v2: read as any object (its schema is not in PROTOCOLS.md); never beside `android`.
        "androidV2": .freeObject,
        "token": .string, "topic": .string, "condition": .string, "fid": .string,
    ])

    /// The request body: `{"message":{…},"validate_only":…}`.
    static let sendRequest = FCMMessageSchema(fcm + "SendMessageRequest", [
        "message": .object(message), "validateOnly": .bool,
    ])
}
