import HTTP2Client
import APNsHTTP2
import PayloadBuilder
import PushGWSync

/// Sending rendered requests to the providers (`NotifyRun`'s sent and
/// retried stages): one attempt per provider batch (with a completion, or
/// awaited), what each outcome means, and the retries with back-off,
/// jitter, Retry-After, the deadline and the budget.
extension Dispatcher {
    /// A request to try again, the result it has if it is not, the
    /// provider's Retry-After, and whether the provider refused it (else
    /// the connection failed under it).
    typealias Retry = (request: ProviderRequest, result: RecipientResult, after: Duration?, refused: Bool)

    /// Files each outcome's final result in `final`; returns what may be
    /// retried. What the outcomes say of the app's providers goes to `health`.
    func classify(_ requests: [ProviderRequest], _ outcomes: [DeliveryResult], app: AppProfile,
                  into final: inout [Int: RecipientResult]) -> [Retry] {
        var retry: [Retry] = []
        // By position, each request's fields read in place (iterating the
        // requests copied each one, five references retained and released).
        for index in 0..<min(requests.count, outcomes.count) {
            let outcome = outcomes[index]
            let platform = requests[index].platform
            let recipientIndex = requests[index].recipientIndex
            let token = requests[index].token
            let provider = platform.deliveredBy.rawValue
            switch outcome {
            case let .accepted(providerID):
                health.worked(app: app.name, provider: provider)
                final[recipientIndex] = RecipientResult(platform: platform, token: token,
                                                         status: .sent, providerID: providerID)
            case let .rejected(_, reason, .dropToken(since)):
                health.worked(app: app.name, provider: provider)
                series.provider(provider).rejectedTokens.add(1)
                final[recipientIndex] = RecipientResult(platform: platform, token: token,
                                                         status: .invalidToken, reason: reason, invalidSince: since)
            case let .rejected(_, reason, .final):
                final[recipientIndex] = RecipientResult(platform: platform, token: token,
                                                         status: .failed, reason: reason, retryable: false)
            case let .rejected(status, reason, .configuration(detail)):
                if health.failed(app: app.name, provider: provider, reason: reason) {
                    logger.warning("provider refused our configuration", [
                        ("app", app.name), ("provider", provider), ("status", String(status)), ("reason", reason),
                    ] + (detail.map { [("detail", $0)] } ?? []))
                }
                final[recipientIndex] = RecipientResult(platform: platform, token: token,
                                                         status: .failed, reason: reason, retryable: false)
            case let .rejected(_, reason, .retry(after)):
                retry.append((requests[index], RecipientResult(platform: platform, token: token, status: .failed,
                                                               reason: reason, retryable: true), after, true))
            case let .rejected(_, reason, .refreshCredential):
                // The client made no fresh credential to send it with: retried as any refusal for now.
                retry.append((requests[index], RecipientResult(platform: platform, token: token, status: .failed,
                                                               reason: reason, retryable: true), nil, true))
            case let .notSent(reason):
                final[recipientIndex] = RecipientResult(platform: platform, token: token, status: .skipped, reason: reason)
            case let .failed(error):
                // The gateway shutting down is not retried here, but it says
                // nothing against the device: the caller's retry of the event
                // (on another instance) may well send it.
                let result = RecipientResult(platform: platform, token: token, status: .failed,
                                             reason: error.kind.name, retryable: error.isRetryable || error.kind == .shutdown)
                if error.isRetryable {
                    // No sooner than the failure allows (an access-token
                    // hold-off): an earlier retry would fail the same way
                    // without reaching the provider and spend the budget.
                    retry.append((requests[index], result, error.retryAfter, false))
                } else {
                    if [.noHTTP2, .certificateRejected, .proxyRefused, .credentials].contains(error.kind),
                       health.failed(app: app.name, provider: provider, reason: error.kind.name) {
                        // The detail says which (a refused OAuth grant and the
                        // endpoint's words, a certificate that does not
                        // verify); it holds no key or token.
                        logger.warning("provider cannot be used", [
                            ("app", app.name), ("provider", provider), ("reason", error.kind.name), ("detail", error.detail),
                        ])
                    }
                    final[recipientIndex] = result
                }
            }
        }
        return retry
    }

    /// Retries with back-off and jitter, within the deadline, the attempt
    /// limit and the shared budget; what is not retried keeps its last result.
    /// Each request keeps its own schedule: a long Retry-After for one
    /// device delays (or, past the deadline, ends) that device alone, and a
    /// retry that is slow to be answered holds up no other: each batch that
    /// falls due is sent while the earlier ones are still out.
    func retrying(_ retry: [Retry], app: AppProfile, deadline: ContinuousClock.Instant,
                  final: inout [Int: RecipientResult]) async {
        var schedule = RetrySchedule(policy: settings.retry, deadline: deadline)
        for result in schedule.add(retry, attempt: 2, now: ContinuousClock.now, jitter: Double.random(in: 0...1)) {
            final[result.request.recipientIndex] = result.result
        }
        await withTaskGroup(of: RetryEvent.self) { group in
            var out = 0
            var timerFor: ContinuousClock.Instant?
            while true {
                let now = ContinuousClock.now
                let batch = schedule.takeDue(now: now)
                // Taken too close to the deadline (a timer or a batch came late): not sent.
                let inTime = schedule.leavesTimeForAnAttempt(at: now)
                let sendable = inTime ? batch : []
                for waiting in batch where !inTime { final[waiting.retry.request.recipientIndex] = waiting.retry.result }
                let granted = budget.withdraw(sendable.count)
                for waiting in sendable.dropFirst(granted) { final[waiting.retry.request.recipientIndex] = waiting.retry.result }
                let sending = Array(sendable.prefix(granted))
                if !sending.isEmpty {
                    let requests = sending.map(\.retry.request)
                    for request in requests { series.provider(request.platform.deliveredBy.rawValue).retries.add(1) }
                    out += 1
                    group.addTask { .answered(sending, await self.sendOnce(requests, app: app, deadline: deadline)) }
                }
                if let due = schedule.nextDue, due != timerFor {
                    // One timer for the earliest due time; a later one that is
                    // no longer the earliest just wakes the loop for nothing.
                    timerFor = due
                    out += 1
                    group.addTask {
                        try? await Task.sleep(until: due, clock: .continuous)
                        return .timer(due)
                    }
                }
                // Nothing out means nothing scheduled either (a due time always has its timer).
                guard out > 0, let event = await group.next() else { break }
                out -= 1
                guard case let .answered(sent, outcomes) = event else {
                    if case let .timer(due) = event, due == timerFor { timerFor = nil }
                    continue
                }
                let requests = sent.map(\.retry.request)
                let again = classify(requests, outcomes, app: app, into: &final)
                var attempts: [Int: Int] = [:]
                for waiting in sent { attempts[waiting.retry.request.recipientIndex] = waiting.attempt }
                let jitter = Double.random(in: 0...1)
                let after = ContinuousClock.now
                for retry in again {
                    let attempt = (attempts[retry.request.recipientIndex] ?? settings.retry.maximumAttempts) + 1
                    for dropped in schedule.add([retry], attempt: attempt, now: after, jitter: jitter) {
                        final[dropped.request.recipientIndex] = dropped.result
                    }
                }
            }
            group.cancelAll()
        }
    }

    /// What `retrying` waits for: a batch's answers, or a timer for a due time.
    enum RetryEvent: Sendable {
        case answered([RetrySchedule.Waiting], [DeliveryResult])
        case timer(ContinuousClock.Instant)
    }

    func countNotifications(_ final: [Int: RecipientResult]) {
        for index in final.values.indices {
            series.notifications(final.values[index].platform, final.values[index].status).add(1)
        }
    }

    /// One attempt for every request, each provider's batch in parallel,
    /// all of it within the time left until `deadline`.
    func sendOnce(_ requests: [ProviderRequest], app: AppProfile, deadline: ContinuousClock.Instant) async -> [DeliveryResult] {
        await withCheckedContinuation { continuation in
            sendOnce(requests, app: app, deadline: deadline) { continuation.resume(returning: $0) }
        }
    }

    /// `sendOnce` with a completion: every provider's batch is handed to its
    /// sender at once; `completion` runs when the last one has answered.
    func sendOnce(_ requests: [ProviderRequest], app: AppProfile, deadline: ContinuousClock.Instant,
                  completion: @escaping @Sendable ([DeliveryResult]) -> Void) {
        // Each sending platform's positions (FCM's for `fcm_web` too),
        // platforms in order of first appearance (a list: there are two
        // platforms, a dictionary costs more than a scan).
        var byPlatform: [(platform: Platform, positions: [Int])] = []
        for position in requests.indices {
            // The platform read in place: iterating the requests copied each (five references retained).
            let platform = requests[position].platform.deliveredBy
            if let group = byPlatform.firstIndex(where: { $0.platform == platform }) {
                byPlatform[group].positions.append(position)
            } else {
                byPlatform.append((platform, [position]))
            }
        }
        let gathered = Locked(Gathering<DeliveryResult>(count: requests.count, parts: byPlatform.count,
                                                        missing: .failed(TransportError(.shutdown, "no result"))))
        let timeout = max(.zero, deadline - ContinuousClock.now)
        let appSenders = senders[app.name]
        for (platform, positions) in byPlatform {
            guard let sender = appSenders?[platform] else {
                let refusal = DeliveryResult.rejected(status: 0, reason: "no \(platform.rawValue) sender configured", verdict: .final)
                if let all = gathered.withLock({ $0.add(positions, Array(repeating: refusal, count: positions.count)) }) {
                    completion(all)
                }
                continue
            }
            let batch = positions.map { requests[$0] }
            let provider = series.provider(sender.provider)
            provider.inFlight.add(Double(batch.count))
            sender.send(batch, timeout: timeout) { results in
                provider.inFlight.add(-Double(batch.count))
                if let all = gathered.withLock({ $0.add(positions, results) }) { completion(all) }
            }
        }
    }
}
