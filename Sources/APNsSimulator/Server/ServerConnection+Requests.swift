/// Request assembly, fault injection and answers (from the handler),
/// driven by the nghttp2 callbacks and the connection's loop.
///
/// A `Stream` is read in place (`streams.index(forKey:)`, then
/// `streams.values[index]`), never copied out of the dictionary: a copy
/// would retain and release each of its buffers.
extension ServerConnection {
    func beginRequest(streamID: Int32) {
        streams[streamID] = Stream()
        incomingHeaders = IncomingHeaders(streamID: streamID)
    }

    /// One field of the header block being received, copied as bytes;
    /// `false` when the block is over `headerFieldLimit` (the stream is
    /// then reset and its fields dropped).
    func receiveHeader(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>,
                       neverIndexed: Bool) -> Bool {
        guard incomingHeaders?.append(streamID: streamID, name: name, value: value, neverIndexed: neverIndexed) != false else {
            incomingHeaders = nil
            return false
        }
        return true
    }

    /// The request header block of `streamID` is complete: its fields join the stream.
    func endHeaders(streamID: Int32) {
        guard incomingHeaders?.streamID == streamID, let block = incomingHeaders.take(),
              let index = streams.index(forKey: streamID) else { return }
        streams.values[index].request.fields = block.fields
    }

    /// The phase of `streamID`, if it is open.
    private func phase(of streamID: Int32) -> Phase? {
        guard let index = streams.index(forKey: streamID) else { return nil }
        return streams.values[index].phase
    }

    func receiveBody(streamID: Int32, chunk: UnsafeBufferPointer<UInt8>) {
        streams[streamID]?.request.appendBody(chunk)
    }

    /// The request on `streamID` is complete: apply the faults in force, then
    /// schedule its answer.
    func completeRequest(streamID: Int32) {
        guard !dropRequested, phase(of: streamID) == .receiving else { return }
        if let last = goAwayLastStreamID, streamID > last {
            streams[streamID]?.phase = .ignored
            service.recordUnanswered(1)
            return
        }
        let faults = service.faults
        if let limit = faults.dropConnectionAfterStreams, completedRequests >= limit {
            answerDue()  // earlier requests whose answer is due still get it
            dropRequested = true
            service.recordDropped()
            service.recordUnanswered(1 + pending.count)
            return
        }
        completedRequests += 1
        highestCompletedStreamID = max(highestCompletedStreamID, streamID)
        if faults.silent {
            streams[streamID]?.phase = .silent
            service.recordUnanswered(1)
        } else {
            streams[streamID]?.phase = .waiting
            schedule(streamID, due: ContinuousClock.now + faults.responseDelay)
        }
        if let limit = faults.goAwayAfterStreams, goAwayLastStreamID == nil, completedRequests >= limit {
            goAway(lastStreamID: highestCompletedStreamID, debugData: service.goAwayDebugData)
        }
    }

    /// A request opened `streamID` beyond the stream limit: with the
    /// service's GOAWAY for it, the connection ends, the streams before it
    /// still answered (APNs, PROTOCOLS.md A6); without, nghttp2 has refused
    /// that stream alone.
    func streamLimitExceeded(streamID: Int32) {
        guard let debugData = service.streamLimitGoAwayDebugData, goAwayLastStreamID == nil else { return }
        goAway(lastStreamID: max(0, streamID - 2), debugData: debugData)
    }

    func streamClosed(streamID: Int32) {
        streams[streamID] = nil
        if incomingHeaders?.streamID == streamID { incomingHeaders = nil }
    }

    /// Copies the next part of a response body for nghttp2.
    func readResponseBody(streamID: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>) -> (count: Int, finished: Bool) {
        guard let index = streams.index(forKey: streamID) else { return (0, true) }
        return streams.values[index].copyResponseBody(into: buffer)
    }

    /// Inserts an answer into the due-ordered queue.
    private func schedule(_ streamID: Int32, due: ContinuousClock.Instant) {
        let index = pending.firstIndex { $0.due > due } ?? pending.endIndex
        pending.insert(PendingAnswer(due: due, streamID: streamID), at: index)
    }

    /// Answers every request whose delay has passed.
    func answerDue() {
        guard !dropRequested else { return }
        let now = ContinuousClock.now
        while let first = pending.first, first.due <= now {
            pending.removeFirst()
            answer(first.streamID)
        }
    }

    /// Has the handler answer the request, then submits the answer.
    private func answer(_ streamID: Int32) {
        guard let index = streams.index(forKey: streamID), streams.values[index].phase == .waiting, let session else { return }
        let answer = handler.answer(streams.values[index].request, streamID: streamID)
        if answer.streamLimitMayHaveChanged { applyStreamLimit() }
        if let index = streams.index(forKey: streamID) {
            streams.values[index].phase = .answered
            streams.values[index].responseBody = answer.body
        }
        _ = session.submitResponse(streamID: streamID, status: answer.status, headers: answer.headers,
                                   hasBody: !answer.body.isEmpty)
    }
}
