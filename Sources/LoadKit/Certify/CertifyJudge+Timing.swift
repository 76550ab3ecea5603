import Foundation

/// The verdicts that depend on when requests came: Retry-After, the backoff waits against the
/// claim, the jitter's distribution, the independence of concurrent retries, attempt timeouts.
extension CertifyJudge {
    static func judgeRetryAfter(_ sends: [(key: Int, value: [ServerView.Attempt])]) -> CertifyVerdict {
        var broken: [Int] = []
        var judged = 0
        var shortest = Double.infinity
        for (id, attempts) in sends {
            for index in attempts.indices.dropLast() {
                guard let meant = attempts[index].retryAfter, attempts[index].answered,
                    meant <= ServerView.retryAfterLimit, let gap = ServerView.gap(attempts, after: index)
                else { continue }
                judged += 1
                shortest = min(shortest, gap - meant)
                if ContractProperty.outsideWindow(gap, low: meant, high: .infinity, early: earlyTolerance, late: 0) {
                    broken.append(id)
                }
            }
        }
        if judged == 0 { return .fail("no retry followed an answer with a Retry-After") }
        return broken.isEmpty
            ? .pass("\(judged) retries, the earliest \(format(shortest)) s after the Retry-After")
            : .fail(
                "\(broken.count) sends retried sooner than the Retry-After (by up to \(format(-shortest)) s)",
                sends: Array(Set(broken)).sorted())
    }

    /// The waits after retryable failures that carried no Retry-After, each with its retry's index.
    static func backoffWaits(_ attempts: [ServerView.Attempt]) -> [(send: Int, wait: Double, retry: Int)] {
        var waits: [(Int, Double, Int)] = []
        for index in attempts.indices.dropLast() where attempts[index].retryAfter == nil && !attempts[index].final {
            guard let gap = ServerView.gap(attempts, after: index) else { continue }
            waits.append((Int(attempts[index].record.benchSendID), gap, index))
        }
        return waits
    }

    static func judgeWaits(_ sends: [(key: Int, value: [ServerView.Attempt])], claim: ClientClaim)
        -> CertifyVerdict
    {
        guard claim.jitter != .unknown else {
            return CertifyVerdict(outcome: .notApplicable, detail: "the client does not say how it draws its waits")
        }
        let waits = sends.flatMap { backoffWaits($0.value) }
        guard !waits.isEmpty else { return .fail("no backoff wait to judge: no send was retried") }
        var broken: Set<Int> = []
        var worst = ""
        for (send, wait, retry) in waits {
            guard let draw = claim.draw(retry: retry) else { continue }
            let high = draw.low + draw.width
            if ContractProperty.outsideWindow(
                wait, low: draw.low, high: high, early: earlyTolerance, late: lateTolerance(cap: high))
            {
                if broken.isEmpty {
                    worst =
                        "send \(send) waited \(format(wait)) s where the claim allows \(format(draw.low))-\(format(high)) s"
                }
                broken.insert(send)
            }
        }
        return broken.isEmpty
            ? .pass("\(waits.count) waits within the claimed \(claim.jitter.rawValue)-jitter bounds")
            : .fail("\(broken.count) sends waited outside the claimed policy; \(worst)", sends: broken.sorted())
    }

    static func judgeJitter(_ sends: [(key: Int, value: [ServerView.Attempt])], claim: ClientClaim)
        -> CertifyVerdict
    {
        guard claim.jitter == .full || claim.jitter == .equal || claim.jitter == .additive else {
            return CertifyVerdict(
                outcome: .notApplicable, detail: "the claimed jitter (\(claim.jitter.rawValue)) draws nothing to test")
        }
        // Each wait with the uniform draw the claim makes for it (those an additive jitter's clamp
        // cuts are left out).
        let waits = sends.flatMap { backoffWaits($0.value) }.compactMap {
            wait -> (wait: Double, low: Double, width: Double)? in
            guard claim.drawIsUniform(retry: wait.retry), let draw = claim.draw(retry: wait.retry) else { return nil }
            return (wait.wait, draw.low, draw.width)
        }
        guard waits.count >= jitterMinimum else {
            return .fail("only \(waits.count) backoff waits (\(jitterMinimum) needed): too few retries")
        }
        // The server sees each wait plus the client's own time between attempts (reading the
        // answer, a connection, its scheduler), which only ever delays a retry and varies with
        // the host's load. Its size shows where a wait ran past its draw's top: the longest such
        // overrun, up to `turnaroundAllowance`, is allowed to every wait, and the test asks the
        // waits to lie between the claimed draw and the draw delayed by that much. Too few short
        // waits (a floor, a herd at the cap) fail unless the client's own time is as long as the
        // floor itself; too many (a squared draw) fail while that time is small beside the caps,
        // and beyond that cannot be told from a correct draw delayed less.
        let overrun = waits.map { $0.wait - $0.low - $0.width }.max() ?? 0
        let turnaround = min(max(0, overrun), turnaroundAllowance)
        let test = KolmogorovSmirnov(
            uniform: waits.map { ($0.wait - $0.low) / $0.width }, delays: waits.map { turnaround / $0.width })
        let taken =
            "up to \(format(turnaround * 1000)) ms of the client's own time allowed, its longest wait past a cap"
        return test.p >= jitterAlpha
            ? .pass("\(waits.count) waits, KS D \(format(test.d)), p \(format(test.p)) (\(taken))", figure: test.d)
            : .fail(
                "\(waits.count) waits are not \(claim.jitter.rawValue) jitter: KS D \(format(test.d)), p \(String(format: "%.2g", test.p)) (\(taken))",
                figure: test.d)
    }

    static func judgeIndependence(_ sends: [(key: Int, value: [ServerView.Attempt])])
        -> CertifyVerdict
    {
        // The first waits of the sends whose first attempt failed without a Retry-After, drawn
        // independently, spread in proportion to their own length (full jitter: a standard
        // deviation of 0.58 of the mean wait, equal jitter 0.19); waits without jitter, or one
        // draw shared by every send, spread only by the client's scheduling. Judged against the
        // waits the server saw, not the claimed cap, so a claim cannot excuse a herd.
        let waits = sends.compactMap { send -> Double? in
            guard !send.value[0].final, send.value[0].retryAfter == nil else { return nil }
            return ServerView.gap(send.value, after: 0)
        }
        guard waits.count >= 10 else { return .fail("only \(waits.count) sends retried (10 needed)") }
        let moments = Moments(waits)
        let spread = moments.variance.squareRoot()
        let share = moments.mean > 0 ? spread / moments.mean : 0
        let measured =
            "spread \(format(spread * 1000)) ms (standard deviation) over a mean wait of \(format(moments.mean * 1000)) ms"
        return share >= independenceShare
            ? .pass("\(waits.count) first waits \(measured): \(format(share)) of it", figure: share)
            : .fail(
                "the first waits of \(waits.count) sends that failed together \(measured), only \(format(share)) of it: they retry as a herd",
                figure: share)
    }

    static func judgeTimeout(_ sends: [(key: Int, value: [ServerView.Attempt])], claim: ClientClaim)
        -> CertifyVerdict
    {
        let limit = (claim.timeout ?? ClientClaim.contractDefaults.timeout!).seconds
        var broken: [Int] = []
        var longest = 0.0
        var judged = 0
        for (id, attempts) in sends {
            // The attempts the fault held: never answered (hang), or answered a few bytes a
            // second (slowBody), which a timeout per read never ends.
            for attempt in attempts
            where attempt.record.action == .fault(.hang) || attempt.record.action == .fault(.slowBody) {
                judged += 1
                let lasted = attempt.record.finished - attempt.record.arrival
                longest = max(longest, lasted.isFinite ? lasted : .infinity)
                if ContractProperty.outsideWindow(
                    lasted, low: -.infinity, high: limit, early: 0, late: lateTolerance(cap: limit))
                {
                    broken.append(id)
                }
            }
        }
        if judged == 0 { return .fail("no request met the held answer: the case did not reach its fault") }
        return broken.isEmpty
            ? .pass("\(judged) held attempts given up after at most \(format(longest)) s", figure: longest)
            : .fail(
                "\(broken.count) sends held an attempt \(format(longest)) s (claimed timeout \(format(limit)) s)",
                sends: Array(Set(broken)).sorted(), figure: longest)
    }
}
