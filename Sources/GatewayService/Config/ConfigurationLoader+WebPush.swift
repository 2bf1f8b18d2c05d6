import Foundation
import WebPush
import WebPushClient

/// Checking an app's direct web push settings.
extension ConfigurationLoader {
    /// A VAPID key file and a subject, both required; for the service the
    /// key is read and parsed, so a wrong file refuses the start.
    func webPushSettings(_ draft: AppDraft.WebPush, of app: AppDraft,
                         use: Use) throws(ServiceError) -> GatewayConfiguration.WebPushSettings {
        guard let keyFile = draft.vapidKeyFile else {
            throw ServiceError(setting: app.settingName("webpush", "vapid_key_file"),
                               "required for web push: the VAPID private key, PEM or base64url (`pushgw vapid-keys` makes one)")
        }
        guard let subject = draft.vapidSubject else {
            throw ServiceError(setting: app.settingName("webpush", "vapid_subject"),
                               "required for web push: a contact push services can reach, mailto:ops@example.com or https://example.com")
        }
        guard subject.value.hasPrefix("mailto:") || subject.value.hasPrefix("https:"), subject.value.utf8.count > 7,
              !subject.value.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else {
            throw ServiceError(setting: subject.setting, "a mailto: or https: URI without spaces (RFC 8292 §2.1)")
        }
        if use == .service {
            let bytes = try read(keyFile)
            do throws(VAPIDKeyError) {
                _ = try VAPIDKey(configurationValue: String(decoding: bytes, as: UTF8.self))
            } catch {
                throw ServiceError(setting: keyFile.setting, "not a VAPID private key: \(error)")
            }
        }
        var settings = GatewayConfiguration.WebPushSettings(vapidKeyFile: keyFile.value, vapidSubject: subject.value)
        settings.vapidKeyFileSetting = keyFile.setting
        settings.vapidSubjectSetting = subject.setting
        if let hosts = draft.allowedHosts {
            settings.allowedHosts = try Self.avatarHosts(
                hosts.value.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) },
                hosts.setting)
        }
        if let caFile = draft.caFile {
            try checkCAFile(caFile, use: use)
            settings.caFile = caFile.value
        }
        if let flag = draft.allowPrivateAddresses { settings.allowPrivateAddresses = try Self.bool(flag.value, flag.setting) }
        if let connections = draft.connections { settings.connections = try Self.number(connections.value, connections.setting, 1...64) }
        return settings
    }
}
