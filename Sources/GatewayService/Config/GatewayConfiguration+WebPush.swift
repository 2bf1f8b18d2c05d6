public import EventLoops
public import HTTP2Client
import WebPush
public import WebPushClient

extension GatewayConfiguration.WebPushSettings {
    /// The app's web push sender: its VAPID key read and parsed, its
    /// endpoints held to the allow-list and, after DNS, to the addresses
    /// the avatar guard admits (public unicast ones; private and loopback
    /// ones too only with `allowPrivateAddresses`, never cloud metadata
    /// services).
    public func makeSender(options: HTTP2ConnectionOptions = HTTP2ConnectionOptions(),
                           loops: [EventLoop]? = nil) throws(ServiceError) -> WebPushSender {
        let bytes: [UInt8]
        do {
            bytes = try FileReader.read(vapidKeyFile)
        } catch {
            throw ServiceError(setting: vapidKeyFileSetting,
                               ConfigurationLoader.cannotRead(vapidKeyFile, error, shown: ConfigurationLoader.isShowable(vapidKeyFile)))
        }
        let key: VAPIDKey
        do throws(VAPIDKeyError) {
            key = try VAPIDKey(configurationValue: String(decoding: bytes, as: UTF8.self))
        } catch {
            throw ServiceError(setting: vapidKeyFileSetting, "not a VAPID private key: \(error)")
        }
        let authorizer: VAPIDAuthorizer
        do throws(VAPIDError) {
            authorizer = try VAPIDAuthorizer(key: key, subject: vapidSubject)
        } catch {
            throw ServiceError(setting: vapidSubjectSetting, "\(error)")
        }
        let addresses = AvatarPolicy(allowPrivateAddresses: allowPrivateAddresses)
        let policy = WebPushEndpointPolicy(allowedHosts: allowedHosts, admitsAddress: { bytes in
            AvatarIPAddress(bytes: bytes).map { addresses.admits($0) } ?? false
        })
        return WebPushSender(authorizer: authorizer, policy: policy, tls: TLSConfiguration(caFile: caFile),
                             connections: connections, options: options, loops: loops)
    }
}
