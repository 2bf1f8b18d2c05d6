import COpenSSL
import Foundation
import TestSupport
import XCTest

/// Web push messages made by well-known implementations, independent of
/// the simulator and of the gateway: `scripts/webpush-reference.py` run
/// with the virtual environment's python (`scripts/install-deps` fills
/// it): bodies encrypted by `http_ece`, JWTs signed by `cryptography`
/// over exactly the header and claims given, and an authorization made by
/// `py_vapid`.
enum WebPushReference {
    static let script = ProjectPythonTools.path("scripts/webpush-reference.py")
    static var python: String { ProjectPythonTools.python }

    /// What the script answers.
    struct Output: Decodable {
        let bodies: [String]?
        let vapid_public_key: String
        let tokens: [String]
        let py_vapid_authorization: String?

        /// The bodies, decoded.
        var bodyBytes: [[UInt8]] { (bodies ?? []).map { webPushDecode($0) } }
    }

    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs the script on `request` (see the script for its members). Fails
    /// (never skips), naming the remedy, when the Python tools are missing.
    static func run(_ request: [String: Any]) throws -> Output {
        try ProjectPythonTools.require("http_ece and py_vapid are")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script]
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: request))
        try input.fileHandleForWriting.close()
        let answer = output.fileHandleForReading.readDataToEndOfFile()
        let complaint = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failed(description: "webpush-reference.py failed: \(String(decoding: complaint, as: UTF8.self))")
        }
        return try JSONDecoder().decode(Output.self, from: answer)
    }
}

/// Unpadded base64url, decoded (the test's own, not the simulator's).
func webPushDecode(_ text: String) -> [UInt8] {
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    return Array(Data(base64Encoded: base64) ?? Data())
}

extension SimTestKey {
    /// The public key's uncompressed point, base64url: a VAPID `k`.
    var vapidPublicKey: String {
        let length = i2d_PUBKEY(pointer, nil)
        var der = [UInt8](repeating: 0, count: Int(length))
        der.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            _ = i2d_PUBKEY(pointer, &cursor)
        }
        return simBase64URL(Array(der.suffix(65)))
    }

    /// A VAPID JWT over `claims` (JSON text), header `{"typ":"JWT","alg":"ES256"}`.
    func vapidJWT(claims: String) -> String {
        let signingInput = simBase64URL(Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8)) + "." + simBase64URL(Array(claims.utf8))
        return signingInput + "." + simBase64URL(sign(Array(signingInput.utf8)))
    }
}
