import Dispatch
import Foundation
import Synchronization

/// Blocks until SIGINT or SIGTERM arrives; returns its name.
func waitForTerminationSignal() -> String {
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
