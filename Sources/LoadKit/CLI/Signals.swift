import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Blocks until SIGINT or SIGTERM arrives; returns its name.
func waitForTerminationSignal() -> String {
    let semaphore = DispatchSemaphore(value: 0)
    let received = SignalBox()
    var sources: [any DispatchSourceSignal] = []
    for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler {
            received.set(name)
            semaphore.signal()
        }
        source.resume()
        sources.append(source)
    }
    semaphore.wait()
    for source in sources { source.cancel() }
    return received.name
}

/// `@unchecked Sendable`: `name` is written once under the lock before the semaphore is signalled.
private final class SignalBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = "signal"
    func set(_ name: String) { lock.withLock { stored = name } }
    var name: String { lock.withLock { stored } }
}
