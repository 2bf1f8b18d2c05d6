import OpenSSLCrypto
public import GatewayService
import APNsHTTP2
public import APNsSimulator
import Foundation
import PayloadBuilder
import WebPush

/// The built-in providers of the no-credentials demo: the strict APNs, FCM
/// and web push simulators on 127.0.0.1 with a throwaway P-256 APNs key, a
/// throwaway service account and a throwaway VAPID key, written to a private
/// temporary folder, and one simulated browser subscribed to the web push
/// one, so `pushgw` with no configuration makes real sends a newcomer can
/// watch.
public final class DemoProviders: Sendable {
    public static let keyID = "DEMOKEY001"
    public static let teamID = "DEMOTEAM01"
    public static let topic = "com.example.pushgw"
    public static let projectID = "pushgw-demo"
    /// The demo's VAPID contact.
    public static let vapidSubject = "mailto:demo@pushgw.invalid"

    public let apns: APNsSimulator
    public let fcm: FCMSimulator
    public let webPush: WebPushSimulator
    /// The simulated browser's subscription to the demo's VAPID key.
    public let browser: WebPushSubscription
    public let vapidKeyFile: String
    public let webPushCAFile: String
    public let folder: String
    public let keyFile: String
    public let caFile: String
    public let serviceAccountFile: String
    public let fcmCAFile: String
    /// A file with one fresh API token, for a gateway started from
    /// `gatewayEnvironment` (the in-process demo does not use it).
    public let tokensFile: String

    /// Starts both simulators with fresh throwaway keys in a new temporary
    /// folder. `folderCreated` is told the folder's path as soon as it
    /// exists, before any key is written, so that a process stopped at once
    /// meanwhile can still remove it (`removeFolder(at:)`). When starting
    /// fails, the folder is removed.
    public init(folderCreated: (String) -> Void = { _ in }) throws(ServiceError) {
        let folder = NSTemporaryDirectory() + "pushgw-demo-\(UUID().uuidString)"
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw ServiceError(setting: "demo", "cannot create the demo's temporary folder \(folder): \(error)")
        }
        folderCreated(folder)
        self.folder = folder
        do {
            let key = try ES256SigningKey.generate()
            keyFile = folder + "/demo-apns-key.p8"
            _ = FileManager.default.createFile(atPath: keyFile, contents: Data(key.privateKeyPEM.utf8),
                                               attributes: [.posixPermissions: 0o600])
            var configuration = APNsSimulatorConfiguration(teamID: Self.teamID, keys: [Self.keyID: key.publicKeyPEM], topics: [Self.topic])
            configuration.recordsNotifications = false
            configuration.recordsAcceptedIDs = false
            apns = try APNsSimulator(configuration: configuration)
            try apns.start()
            caFile = folder + "/demo-apns-ca.pem"
            try apns.writeCA(to: caFile)

            let account = try ThrowawayServiceAccount(projectID: Self.projectID)
            var fcmConfiguration = FCMSimulatorConfiguration(projectID: Self.projectID, serviceAccounts: [account.registration])
            fcmConfiguration.recordsMessages = false
            fcm = try FCMSimulator(configuration: fcmConfiguration)
            try fcm.start()
            fcmCAFile = folder + "/demo-fcm-ca.pem"
            try fcm.writeCA(to: fcmCAFile)
            serviceAccountFile = folder + "/demo-service-account.json"
            _ = FileManager.default.createFile(atPath: serviceAccountFile, contents: Data(account.json(tokenURI: fcm.tokenURI).utf8),
                                           attributes: [.posixPermissions: 0o600])
            let vapid = try VAPIDKey.generate()
            vapidKeyFile = folder + "/demo-vapid.pem"
            _ = FileManager.default.createFile(atPath: vapidKeyFile, contents: Data(vapid.privateKeyPEM.utf8),
                                               attributes: [.posixPermissions: 0o600])
            webPush = try WebPushSimulator(configuration: WebPushSimulatorConfiguration(recordsMessages: false))
            try webPush.start()
            webPushCAFile = folder + "/demo-webpush-ca.pem"
            try webPush.writeCA(to: webPushCAFile)
            browser = try webPush.makeSubscription(applicationServerKey: vapid.publicKeyBase64URL)

            var generator = SystemRandomNumberGenerator()
            let token = (0..<4).map { _ in String(generator.next() as UInt64, radix: 16) }.joined()
            tokensFile = folder + "/demo-tokens"
            _ = FileManager.default.createFile(atPath: tokensFile, contents: Data("\(token)\n".utf8), attributes: [.posixPermissions: 0o600])
        } catch {
            Self.removeFolder(at: folder)
            throw ServiceError(setting: "demo", "cannot start the built-in provider simulators: \(error)")
        }
    }

    /// Points the first app at the simulators.
    public func configure(_ configuration: inout GatewayConfiguration) {
        var app = configuration.apps.first ?? GatewayConfiguration.AppSettings(name: "demo")
        app.apns = GatewayConfiguration.APNsSettings(keyFile: keyFile, keyID: Self.keyID, teamID: Self.teamID, topic: Self.topic,
                                                     baseURL: apns.url, caFile: caFile, connections: 1)
        app.fcm = GatewayConfiguration.FCMSettings(serviceAccountFile: serviceAccountFile, projectID: Self.projectID,
                                                   baseURL: fcm.url, caFile: fcmCAFile, connections: 1)
        app.webPush = webPushSettings
        configuration.apps = [app]
        // The simulators are on this machine: never through a proxy that
        // HTTPS_PROXY may name.
        configuration.proxy = .direct
        // The demo runs offline: avatars are fetched only from this machine, so
        // no DNS query or connection ever leaves it (others are dropped as
        // host_not_allowed, which /v1/render shows).
        if configuration.avatar.allowedHosts.isEmpty { configuration.avatar.allowedHosts = ["localhost", "127.0.0.1"] }
    }

    /// Web push to the simulated browser's push service: its host allowed,
    /// and loopback addresses with it (the demo's explicit allowance; the
    /// defaults refuse both).
    public var webPushSettings: GatewayConfiguration.WebPushSettings {
        var settings = GatewayConfiguration.WebPushSettings(vapidKeyFile: vapidKeyFile, vapidSubject: Self.vapidSubject)
        settings.allowedHosts = ["127.0.0.1"]
        settings.allowPrivateAddresses = true
        settings.caFile = webPushCAFile
        return settings
    }

    /// Writes `event` (an event's JSON, the seed's) with the simulated
    /// browser added to its recipients into the demo's folder, and returns
    /// the file's path; nil when `event` is not an event object.
    public func writeEventWithBrowser(_ event: [UInt8]) -> String? {
        guard case var .object(members)? = try? JSONParser.parse(event),
              let index = members.firstIndex(where: { $0.key == "recipients" }),
              case var .array(recipients) = members[index].value else { return nil }
        recipients.append(.object([
            (key: "platform", value: .string("webpush")),
            (key: "endpoint", value: .string(browser.endpoint)),
            (key: "keys", value: .object([(key: "p256dh", value: .string(browser.p256dh)), (key: "auth", value: .string(browser.auth))])),
        ]))
        members[index].value = .array(recipients)
        var writer = JSONWriter(pretty: true)
        Self.write(.object(members), to: &writer)
        let path = folder + "/demo-event-with-browser.json"
        guard FileManager.default.createFile(atPath: path, contents: Data(writer.bytes + [0x0A]),
                                             attributes: [.posixPermissions: 0o600]) else { return nil }
        return path
    }

    private static func write(_ value: JSONValue, to writer: inout JSONWriter) {
        switch value {
        case .null: writer.null()
        case let .bool(flag): writer.bool(flag)
        case let .string(text): writer.string(text)
        case let .int(number): writer.int(number)
        case let .double(number): writer.double(number)
        case let .array(items):
            writer.beginArray()
            for item in items { write(item, to: &writer) }
            writer.endArray()
        case let .object(members):
            writer.beginObject()
            for member in members {
                writer.key(member.key)
                write(member.value, to: &writer)
            }
            writer.endObject()
        }
    }

    /// The environment that points a gateway at these simulators, as for
    /// real providers, with a token file (what `pushgw simulators` prints).
    public var gatewayEnvironment: [(name: String, value: String)] {
        [
            ("PUSHGW_APNS_KEY_FILE", keyFile),
            ("PUSHGW_APNS_KEY_ID", Self.keyID),
            ("PUSHGW_APNS_TEAM_ID", Self.teamID),
            ("PUSHGW_APNS_TOPIC", Self.topic),
            ("PUSHGW_APNS_BASE_URL", apns.url),
            ("PUSHGW_APNS_CA_FILE", caFile),
            ("PUSHGW_FCM_SERVICE_ACCOUNT_FILE", serviceAccountFile),
            ("PUSHGW_FCM_BASE_URL", fcm.url),
            ("PUSHGW_FCM_CA_FILE", fcmCAFile),
            ("PUSHGW_WEBPUSH_VAPID_KEY_FILE", vapidKeyFile),
            ("PUSHGW_WEBPUSH_VAPID_SUBJECT", Self.vapidSubject),
            ("PUSHGW_WEBPUSH_ALLOWED_HOSTS", "127.0.0.1"),
            ("PUSHGW_WEBPUSH_ALLOW_PRIVATE_ADDRESSES", "true"),
            ("PUSHGW_WEBPUSH_CA_FILE", webPushCAFile),
            ("PUSHGW_AVATAR_ALLOWED_HOSTS", "localhost,127.0.0.1"),
            ("PUSHGW_BEARER_TOKENS_FILE", tokensFile),
        ]
    }

    /// What `pushgw simulators` prints: `gatewayEnvironment`, and the
    /// simulators' addresses exempt from any proxy, so that a gateway
    /// started in a shell with `HTTPS_PROXY` set still reaches them on
    /// this machine.
    public var simulatorsCommandEnvironment: [(name: String, value: String)] {
        gatewayEnvironment + [("PUSHGW_NO_PROXY", "127.0.0.1,localhost")]
    }

    /// Stops both simulators and removes the temporary folder.
    public func stop() {
        apns.stop()
        fcm.stop()
        webPush.stop()
        Self.removeFolder(at: folder)
    }

    /// Removes a demo's temporary folder with its throwaway keys, given its
    /// path (`init`'s `folderCreated`), leaving any simulators running: what
    /// a process about to end at once (a second signal) can still do, also
    /// while the demo is starting. Safe to call more than once.
    public static func removeFolder(at path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }
}
