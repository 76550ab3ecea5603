import FakeFrontmail
import Foundation

/// CPU time of this process's threads, read from `/proc/self/task/*/stat` (Linux; zero
/// elsewhere), split into the fake server's event loops (threads named `fm-server-loop`) and
/// everything else (the client: the SDK, URLSession's work queue and libdispatch's event thread).
struct ThreadCPU: Sendable, Equatable {
    var server = 0.0
    var client = 0.0

    static func - (lhs: ThreadCPU, rhs: ThreadCPU) -> ThreadCPU {
        ThreadCPU(server: lhs.server - rhs.server, client: lhs.client - rhs.client)
    }

    /// The threads' CPU seconds now (threads that ended since are no longer counted).
    static func now() -> ThreadCPU {
        var total = ThreadCPU()
        let tasks = "/proc/self/task"
        guard let ids = try? FileManager.default.contentsOfDirectory(atPath: tasks) else { return total }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard ticks > 0 else { return total }
        for id in ids {
            guard let text = try? String(contentsOfFile: "\(tasks)/\(id)/stat", encoding: .utf8),
                let thread = parse(stat: text)
            else { continue }
            let seconds = Double(thread.ticks) / ticks
            if thread.name == serverThreadName { total.server += seconds } else { total.client += seconds }
        }
        return total
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
