import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Blocks until SIGINT or SIGTERM arrives; returns its name.
package func waitForTerminationSignal() -> String {
    let semaphore = DispatchSemaphore(value: 0)
    let received = Mutex("signal")
    let handler = InterruptHandler { name in
        received.withLock { $0 = name }
        semaphore.signal()
    }
    semaphore.wait()
    handler.stop()
    return received.withLock { $0 }
}

/// Calls `action` with the signal's name on SIGINT or SIGTERM (which no longer end the process
/// until `stop()`).
// @unchecked Sendable: `sources` is set once in `init`; DispatchSource is thread-safe but not marked Sendable.
final class InterruptHandler: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]

    init(_ action: @escaping @Sendable (String) -> Void) {
        var sources: [any DispatchSourceSignal] = []
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { action(name) }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    /// Stops listening and gives both signals their default action back.
    func stop() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
