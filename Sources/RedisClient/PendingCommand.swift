/// A command on its way: its RESP bytes (encoded by the sender, so the
/// loop only copies them out), its deadline and who waits for the reply.
struct PendingCommand: Sendable {
    let bytes: [UInt8]
    let deadline: ContinuousClock.Instant
    let completion: @Sendable (Result<RESPValue, RedisError>) -> Void
}
