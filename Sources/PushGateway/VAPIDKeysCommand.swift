import Foundation
import GatewayService
import WebPush

/// `pushgw vapid-keys [--json]`: makes a new VAPID key pair for direct web
/// push (RFC 8292) and prints the private key as PEM and in the base64url
/// raw form (either configures the gateway), and the public key the site
/// gives browsers as `applicationServerKey`. Nothing is written to disk.
enum VAPIDKeysCommand {
    static let helpText = """
        usage: pushgw vapid-keys [--json]

        Generates a VAPID key pair (EC P-256) for web push sent directly to browsers'
        push services (RFC 8292), and prints:
          - the private key as PEM (PKCS#8), for a key file;
          - the same private key raw: base64url of its 32-byte scalar, the form web-push
            tools print; either form configures an app's VAPID key;
          - the public key, base64url of the 65-byte uncompressed point: the site passes it
            to pushManager.subscribe() as applicationServerKey.
        The private key is a secret; nothing is written to disk. A browser subscription is
        tied to the public key, so replacing the pair means subscribing again.

          --json   one JSON object: {"private_key_pem", "private_key", "public_key"}
        """

    static func run(_ arguments: [String]) -> Int32 {
        var json = false
        for argument in arguments {
            switch argument {
            case "--json": json = true
            case "--help", "-h":
                print(helpText)
                return 0
            default:
                return fail("unknown argument \"\(argument)\" (usage: pushgw vapid-keys [--json])")
            }
        }
        let key: VAPIDKey
        let rawPrivateKey: String
        do {
            key = try VAPIDKey.generate()
            rawPrivateKey = try key.privateKeyBase64URL()
        } catch {
            return fail("\(error)")
        }
        let output: String
        if json {
            let fields = ["private_key_pem": key.privateKeyPEM, "private_key": rawPrivateKey, "public_key": key.publicKeyBase64URL]
            guard let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]) else {
                return fail("cannot write JSON")
            }
            output = String(decoding: data, as: UTF8.self) + "\n"
        } else {
            output = """
                # VAPID key pair for web push (RFC 8292). The private key is a secret.
                # Private key, PEM (PKCS#8):
                \(key.privateKeyPEM.hasSuffix("\n") ? key.privateKeyPEM : key.privateKeyPEM + "\n")\
                # The same private key, raw (base64url of the 32-byte P-256 scalar):
                \(rawPrivateKey)
                # Public key (base64url), the browsers' applicationServerKey:
                \(key.publicKeyBase64URL)

                """
        }
        FileDescriptorWriter.write(Array(output.utf8), to: STDOUT_FILENO)
        return 0
    }

    private static func fail(_ message: String) -> Int32 {
        FileDescriptorWriter.write(Array("pushgw vapid-keys: \(message)\n".utf8), to: STDERR_FILENO)
        return 2
    }
}
