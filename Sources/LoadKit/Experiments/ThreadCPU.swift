import FakeFrontmail
import Foundation

/// CPU time of this process's threads, read from `/proc/self/task/*/stat` (Linux; zero
/// elsewhere), split into the fake server's event loops (threads named `fm-server-loop`) and
/// everything else (the client: the SDK, URLSession's work queue and libdispatch's event thread).
struct ThreadCPU: Sendable, Equatable {
    var server = 0.0
    var client = 0.0

    /// Each thread's name and CPU ticks at one moment, by thread id.
    struct Snapshot: Sendable {
        var threads: [Int: (name: String, ticks: UInt64)] = [:]

        /// What the threads alive at `self` spent since `before`: a thread's whole time when it
        /// is new (or its id was reused: fewer ticks than before). Threads that ended in between
        /// are not counted (their time is gone from `/proc` with them), so the figure never goes
        /// down when other threads come and go.
        static func - (after: Snapshot, before: Snapshot) -> ThreadCPU {
            var spent = ThreadCPU()
            let perTick = ThreadCPU.secondsPerTick
            for (id, thread) in after.threads {
                var ticks = thread.ticks
                if let earlier = before.threads[id], earlier.ticks <= ticks { ticks -= earlier.ticks }
                let seconds = Double(ticks) * perTick
                if thread.name == serverThreadName { spent.server += seconds } else { spent.client += seconds }
            }
            return spent
        }
    }

    static let secondsPerTick: Double = {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ticks > 0 ? 1 / ticks : 0
    }()

    /// The threads' CPU ticks now.
    static func now() -> Snapshot {
        var snapshot = Snapshot()
        let tasks = "/proc/self/task"
        guard let ids = try? FileManager.default.contentsOfDirectory(atPath: tasks) else { return snapshot }
        for id in ids {
            guard let number = Int(id), let text = try? String(contentsOfFile: "\(tasks)/\(id)/stat", encoding: .utf8),
                let thread = parse(stat: text)
            else { continue }
            snapshot.threads[number] = thread
        }
        return snapshot
    }

    static let serverThreadName = FakeFrontmailServer.loopThreadName

    /// A thread's name and user plus system clock ticks from its `stat` line (`tid (name) state …
    /// utime stime …`, fields 14 and 15); nil for a line that is not one. The name may hold spaces
    /// and parentheses: it ends at the last `)`.
    static func parse(stat text: String) -> (name: String, ticks: UInt64)? {
        guard let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")"), open < close else {
            return nil
        }
        let name = String(text[text.index(after: open)..<close])
        let fields = text[text.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        // fields[0] is field 3 (the state): utime is field 14, stime field 15.
        guard fields.count > 12, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else { return nil }
        let (sum, overflow) = user.addingReportingOverflow(system)
        return overflow ? nil : (name, sum)
    }
}
