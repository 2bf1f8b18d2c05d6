internal import CNGHTTP2
import Synchronization

/// Requests as streams: submitted from the waiting list up to the stream
/// limit, timed out (and the idle PING sent) on the timer, and completed
/// or failed with their load slot given back.
extension HTTP2Connection {
    func submitWaiting() {
        resumeDeferredBodies()
        guard let session, lifecycle.opensStreams else { return }
        let limit = streamLimit(session)
        // Refill in groups rather than one stream per freed slot: fewer, larger
        // writes for the server (only while streams are still in flight).
        let group = max(1, min(16, limit / 8))
        if !inFlight.isEmpty, limit - inFlight.count < group { return }
        // The header indexing and the in-flight table are taken out for the
        // loop and put back after it: no access to either property spans a
        // call anywhere (see `removeInFlight`, `tearDown`), so the compiler
        // checks none of them for exclusivity at run time. Nothing the loop
        // calls reads them.
        var indexing = headerIndexing
        var streams = InFlightStreams()
        swap(&streams, &inFlight)
        defer {
            headerIndexing = indexing
            swap(&streams, &inFlight)
        }
        var queue = takeWaiting()
        defer {
            queue.compact()
            putBack(&queue)
        }
        let window = Int(nghttp2_session_get_remote_window_size(session))
        while streams.count < limit, let body = queue.firstBodyCount {
            guard BodyFlowControl.opensStream(body: body, unsent: streams.unsentBodyBytes, window: window,
                                              streamsOpen: streams.count) else { break }
            let stream = queue.removeFirst()!
            // The stream's user data: the stream, held by `inFlight` for as
            // long as nghttp2 may call back for it (until its close callback).
            let streamID = stream.submit(to: session, indexing: &indexing, reader: readBodyCallback,
                                         userData: Unmanaged.passUnretained(stream).toOpaque())
            if streamID < 0 {
                complete(stream, .failure(TransportError(.notSent, nghttp2Message("nghttp2_submit_request", streamID))))
                continue
            }
            stream.streamID = streamID
            streams.insert(consume stream)
        }
    }

    /// Streams this connection may have open: the peer's
    /// SETTINGS_MAX_CONCURRENT_STREAMS as it stands now, within our own bound.
    func streamLimit(_ session: OpaquePointer) -> Int {
        min(Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)), options.maximumConcurrentStreams)
    }

    /// The waiting list, taken out of its property (left empty) to be changed
    /// and put back (`putBack`): no access to `waiting` spans a call, so none
    /// is checked for exclusivity at run time. Nothing called in between
    /// reads the property.
    func takeWaiting() -> StreamQueue {
        var queue = StreamQueue()
        swap(&queue, &waiting)
        return queue
    }

    func putBack(_ queue: inout StreamQueue) {
        swap(&queue, &waiting)
    }

    func failWaiting(_ error: TransportError) {
        var queue = takeWaiting()
        let streams = queue.removeAll()
        putBack(&queue)
        for stream in streams { complete(stream, .failure(error)) }
    }

    func checkTimers() {
        guard let session else { return }
        let now = ContinuousClock.now
        guard now >= nextTimerCheck else { return }
        nextTimerCheck = now + Self.timerResolution
        // Over a snapshot, as the dictionary this replaced was walked: a result
        // delivered here runs its caller's completion, which must not meet a
        // table still being read.
        let snapshot = inFlight
        let sinceOrigin = now - PendingStream.origin
        snapshot.forEach { stream in
            // A stream that timed out stays in flight until nghttp2 closes it:
            // it is reset once. Another RST_STREAM for a request still queued
            // inside nghttp2 (never opened) would be a connection error.
            guard !stream.finished, stream.deadlineSinceOrigin <= sinceOrigin else { return }
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.streamID, NGHTTP2_CANCEL.rawValue)
            stream.finish(.failure(TransportError(.timeout, "no response from \(host) within \(stream.timeout)")))
        }
        expireWaiting(now: now, "no stream slot on \(host) within the timeout")
        let expired = flow.expired(now: now)
        if !expired.isEmpty { flow.forcedCut(resumed: resume(expired, session)) }
        if let pingSentAt {
            if now - pingSentAt > options.pingTimeout {
                fatal = TransportError(.connectionLost, "PING to \(host) unanswered for \(options.pingTimeout)")
            }
        } else if now - lastFrameReceived > options.idlePingInterval {
            nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
            pingSentAt = now
        }
    }

    /// Ends every waiting request whose deadline has passed (`StreamQueue.removeExpired`).
    func expireWaiting(now: ContinuousClock.Instant, _ reason: @autoclosure () -> String) {
        var queue = takeWaiting()
        let expired = queue.removeExpired(sinceOrigin: now - PendingStream.origin)
        putBack(&queue)
        for stream in expired { complete(stream, .failure(TransportError(.timeout, reason()))) }
    }

    /// Takes `stream` out of `inFlight`, with the table's reference to it;
    /// nil when it is not there. (The table is taken out and put back, as
    /// in `submitWaiting`.)
    func removeInFlight(_ stream: PendingStream) -> PendingStream? {
        var streams = InFlightStreams()
        swap(&streams, &inFlight)
        let removed = streams.remove(stream)
        swap(&streams, &inFlight)
        return removed
    }

    /// Takes back a stream that nghttp2 has closed and whose result is
    /// delivered, to be reused by a later `send` (its allocation): only
    /// when nothing else holds it (the waiting list until it is next
    /// emptied, a timer's snapshot), and up to a limit.
    func recycle(_ stream: inout PendingStream) {
        guard stream.finished, isKnownUniquelyReferenced(&stream) else { return }
        // Taken out and put back: no access to `recycled` spans a call, so
        // none is checked for exclusivity at run time.
        var spares: [PendingStream] = []
        swap(&spares, &recycled)
        if spares.count < Self.spareStreamLimit {
            stream.recycle()
            spares.append(stream)
        }
        swap(&spares, &recycled)
    }

    /// Finishes a stream and releases its load slot.
    func complete(_ stream: PendingStream, _ result: consuming Result<HTTP2Response, TransportError>) {
        if !stream.finished { stream.finish(result) }
        load.subtract(1, ordering: .relaxed)
    }
}
