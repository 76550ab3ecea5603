import Foundation
import Testing

struct ConditionNotMet: Error {}

/// Waits until `condition` holds, checking every millisecond for at most `limit` seconds.
///
/// Used to reach a state (a request in flight) before acting on it; never to assert a duration.
/// The limit only ends a run that would hang: under a sanitizer on a busy runner, a task can wait
/// tens of seconds for a thread of the cooperative pool, so a state that comes late is not missing.
func waitUntil(limit: TimeInterval = 600, _ condition: () -> Bool) async throws {
    let start = Date()
    while !condition() {
        guard Date().timeIntervalSince(start) < limit else {
            Issue.record("condition not met within \(limit) s")
            throw ConditionNotMet()
        }
        try await Task.sleep(nanoseconds: 1_000_000)
    }
}
