extension EventReader {
    /// Where an object being read sits in the event: a plain value, so that
    /// passing it down costs nothing; its path is built only when an error
    /// names a field.
    enum Place {
        case root, conversation, message, sender, notification, data, recipients
        /// `recipients[index]`.
        case recipient(Int)
        /// `recipients[index].keys`.
        case recipientKeys(Int)

        /// The place's path.
        var path: JSONPath {
            switch self {
            case .root: JSONPath()
            case .conversation: JSONPath([.key("conversation")])
            case .message: JSONPath([.key("message")])
            case .sender: JSONPath([.key("sender")])
            case .notification: JSONPath([.key("notification")])
            case .data: JSONPath([.key("data")])
            case .recipients: JSONPath([.key("recipients")])
            case let .recipient(index): JSONPath([.key("recipients"), .index(index)])
            case let .recipientKeys(index): JSONPath([.key("recipients"), .index(index), .key("keys")])
            }
        }

        /// The path of the member `key` here.
        func appending(_ key: String) -> JSONPath {
            path.appending(key)
        }
    }
}
