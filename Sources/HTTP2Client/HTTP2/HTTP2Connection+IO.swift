internal import CNGHTTP2
import NetworkSockets

/// Bytes between the TLS socket and nghttp2: frames out in large writes,
/// input in slices, with streams refilled while a batch of answers is read.
extension HTTP2Connection {
    /// Collects every frame nghttp2 has ready (up to 64 KiB) and writes them
    /// in one TLS write: one record and one syscall for many frames.
    func flushOutput() throws(TransportError) {
        guard let session, let socket else { return }
        resumeDeferredBodies()
        while true {
            if outputOffset == output.count {
                // Gathered in a local array, the buffer swapped out and back:
                // one exclusive access to `output` per write, not one per frame.
                var gathered: [UInt8] = []
                swap(&gathered, &output)
                gathered.removeAll(keepingCapacity: true)
                outputOffset = 0
                while gathered.count < 64 * 1024 {
                    var data: UnsafePointer<UInt8>?
                    let count = nghttp2_session_mem_send(session, &data)
                    if count < 0 { throw TransportError(.protocolError, nghttp2Message("nghttp2_session_mem_send", Int32(count))) }
                    if count == 0 { break }
                    gathered.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
                }
                swap(&gathered, &output)
                if output.isEmpty {
                    wantsWriteReadiness = false
                    return
                }
            }
            let result = output.withUnsafeBytes { bytes in
                socket.write(UnsafeRawBufferPointer(rebasing: bytes[outputOffset...]))
            }
            switch result {
            case let .bytes(count):
                outputOffset += count
                writeNeedsReadable = false
            case let .wouldBlock(wantsWrite):
                wantsWriteReadiness = wantsWrite
                writeNeedsReadable = !wantsWrite
                return
            case .closed:
                throw TransportError(.connectionLost, "server closed the connection")
            case let .failed(message):
                throw TransportError(.connectionLost, message)
            }
        }
    }

    /// Reads until "would block", feeding nghttp2 a slice at a time. The
    /// streams that the answers free are refilled as they free, and once
    /// `refillsPerWrite` of them have been refilled those requests are
    /// written before the rest of the input is read: the server gets new
    /// work while this thread still reads a large batch of answers, instead
    /// of waiting for all of it (docs/BENCHMARKS-HISTORY.md: against nghttpd's
    /// 100 streams, one connection, 78% → 91% of h2load's rate). When the
    /// server widens the connection's window, the bodies that waited for it
    /// are written at once (`BodyFlowControl`).
    ///
    /// A write failure waits until the input is read: answers already in
    /// the socket must be processed before anything else can fail the
    /// connection (a write to a peer that answered, sent GOAWAY and closed
    /// would otherwise lose the streams it answered).
    func readInput(_ socket: TLSSocket, _ buffer: inout [UInt8]) throws(TransportError) {
        guard let session else { return }
        needsFirstRead = false
        var writeFailure: TransportError?
        var refilled = 0
        readNeedsWritable = false
        while true {
            let result = buffer.withUnsafeMutableBytes { socket.read(into: $0) }
            switch result {
            case let .bytes(count):
                lastFrameReceived = ContinuousClock.now
                writeNeedsReadable = false
                var start = 0
                while start < count {
                    let end = min(count, start + Self.inputSlice)
                    let consumed = buffer.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress! + start, end - start) }
                    if consumed < 0 {
                        throw TransportError(.protocolError, nghttp2Message("nghttp2_session_mem_recv", Int32(consumed)))
                    }
                    start = end
                    // The bodies that waited for the window go now, before
                    // more answers are read and more streams opened.
                    if flow.takeWindowOpened(), writeFailure == nil {
                        do throws(TransportError) { try flushOutput() } catch { writeFailure = error }
                    }
                    let before = inFlight.count
                    submitWaiting()
                    refilled += max(0, inFlight.count - before)
                    if writeFailure == nil, refilled >= min(Self.refillsPerWrite, max(1, streamLimit(session) / 4)) {
                        refilled = 0
                        do throws(TransportError) { try flushOutput() } catch { writeFailure = error }
                    }
                }
            case let .wouldBlock(wantsWrite):
                readNeedsWritable = wantsWrite
                if let writeFailure { throw writeFailure }
                return
            case .closed:
                throw TransportError(.connectionLost, "server closed the connection")
            case let .failed(message):
                throw TransportError(.connectionLost, message)
            }
        }
    }

    /// Input is handed to nghttp2 this much at a time (see `readInput`).
    private static let inputSlice = 1024
    /// Refilled streams are written during a read once there are this many
    /// (or a quarter of a smaller stream limit): ~30 KB of APNs requests.
    private static let refillsPerWrite = 32
}
