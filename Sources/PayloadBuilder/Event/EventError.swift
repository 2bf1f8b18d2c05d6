/// The machine-readable code of a rejected request, as listed in API.md.
///
/// An open set: a struct with static members, so that adding a code breaks
/// no caller's `switch`. Each code knows the HTTP status it is answered with.
public struct ErrorCode: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public let httpStatus: Int

    public init(_ rawValue: String, httpStatus: Int) {
        self.rawValue = rawValue
        self.httpStatus = httpStatus
    }

    public var description: String { rawValue }

    public static let unauthorized = ErrorCode("unauthorized", httpStatus: 401)
    public static let invalidJSON = ErrorCode("invalid_json", httpStatus: 400)
    public static let emptyBody = ErrorCode("empty_body", httpStatus: 400)
    public static let invalidUTF8 = ErrorCode("invalid_utf8", httpStatus: 400)
    public static let invalidEvent = ErrorCode("invalid_event", httpStatus: 400)
    public static let tooManyRecipients = ErrorCode("too_many_recipients", httpStatus: 400)
    public static let bodyTooLarge = ErrorCode("body_too_large", httpStatus: 413)
    public static let unknownApp = ErrorCode("unknown_app", httpStatus: 400)
    public static let notFound = ErrorCode("not_found", httpStatus: 404)
    public static let methodNotAllowed = ErrorCode("method_not_allowed", httpStatus: 405)
}

/// Why a request was refused: the code, the field it is about (nil for the
/// whole body) and a sentence that tells the caller what to change.
///
/// Every rejection is permanent for the request as sent: retrying the same
/// bytes gives the same answer.
public struct EventError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: ErrorCode
    public let field: String?
    public let message: String

    public init(_ code: ErrorCode, field: String?, _ message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    /// The `field` of an `invalid_json` error about the document itself
    /// (a byte order mark, data after the value, no JSON at all), in the
    /// JSONPath notation for the root: every `invalid_json` names a field.
    public static let documentField = "$"

    public init(_ code: ErrorCode, at path: JSONPath, _ message: String) {
        self.init(code, field: path.field, message)
    }

    public var description: String {
        "\(code)\(field.map { " at \($0)" } ?? ""): \(message)"
    }

    /// The JSON error body of API.md: `{"error":{"code","field","message"}}`.
    public var jsonBody: [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("error")
        writer.beginObject()
        writer.member("code", code.rawValue)
        writer.key("field")
        if let field { writer.string(field) } else { writer.null() }
        writer.member("message", message)
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }
}
