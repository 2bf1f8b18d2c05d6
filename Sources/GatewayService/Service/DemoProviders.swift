import APNsHTTP2
public import APNsSimulator
import Foundation

/// The built-in providers of the no-credentials demo: the strict APNs
/// simulator on 127.0.0.1 with a throwaway P-256 key, written to a private
/// temporary folder, so `pushgw` with no configuration makes real HTTP/2
/// sends a newcomer can watch.
public final class DemoProviders: Sendable {
    public static let keyID = "DEMOKEY001"
    public static let teamID = "DEMOTEAM01"
    public static let topic = "com.example.pushgw"

    public let apns: APNsSimulator
    public let folder: String
    public let keyFile: String
    public let caFile: String

    public init() throws(ServiceError) {
        do {
            folder = NSTemporaryDirectory() + "pushgw-demo-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o700])
            let key = try ES256SigningKey.generate()
            keyFile = folder + "/demo-apns-key.p8"
            FileManager.default.createFile(atPath: keyFile, contents: Data(key.privateKeyPEM.utf8), attributes: [.posixPermissions: 0o600])
            var configuration = APNsSimulatorConfiguration(teamID: Self.teamID, keys: [Self.keyID: key.publicKeyPEM], topics: [Self.topic])
            configuration.recordsNotifications = false
            configuration.recordsAcceptedIDs = false
            apns = try APNsSimulator(configuration: configuration)
            try apns.start()
            caFile = folder + "/demo-apns-ca.pem"
            try apns.writeCA(to: caFile)
        } catch {
            throw ServiceError(setting: "demo", "cannot start the built-in provider simulators: \(error)")
        }
    }

    /// Points the first app at the simulators.
    public func configure(_ configuration: inout GatewayConfiguration) {
        var app = configuration.apps.first ?? GatewayConfiguration.AppSettings(name: "demo")
        app.apns = GatewayConfiguration.APNsSettings(keyFile: keyFile, keyID: Self.keyID, teamID: Self.teamID, topic: Self.topic,
                                                     baseURL: apns.url, caFile: caFile, connections: 1)
        configuration.apps = [app]
    }

    public func stop() {
        apns.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
