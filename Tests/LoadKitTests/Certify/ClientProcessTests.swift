import Foundation
import Testing

@testable import LoadKit

#if canImport(Glibc)
    import Glibc
#endif

/// A certified client's command: its output kept, stopped at its deadline or when the caller is
/// cancelled, with everything it started in its process group.
@Suite("certify: the client's process group")
struct ClientProcessTests {
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Waits (bounded) for `pid` to be gone: true when it is.
    static func gone(_ pid: pid_t) async -> Bool {
        for _ in 0..<600 {
            if kill(pid, 0) != 0 { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    static func background(_ folder: URL) throws -> pid_t {
        let text = try String(contentsOf: folder.appendingPathComponent("pid"), encoding: .utf8)
        return pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    @Test("a command's exit, its output in the log, and the protocol's variables in its environment")
    func exits() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("client.log")
        let end = await ClientProcess.run(
            "echo \"$FRONTMAIL_CASE\"; echo oops >&2; exit 3", environment: ["FRONTMAIL_CASE": "4.2"], log: log,
            deadline: 60)
        #expect(end == .exited(3))
        #expect(try String(contentsOf: log, encoding: .utf8) == "4.2\noops\n")
    }

    @Test("a client that writes without end keeps the first 16 MiB in its log and a note of the rest")
    func logLimit() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("client.log")
        let end = await ClientProcess.run(
            "head -c 20000000 /dev/zero; echo done >&2", environment: [:], log: log, deadline: 120)
        #expect(end == .exited(0))
        let data = try Data(contentsOf: log)
        let limit = ClientProcess.logLimit
        #expect(data.prefix(limit).allSatisfy { $0 == 0 })
        let note = String(decoding: data.dropFirst(limit), as: UTF8.self)
        #expect(note.contains("\(20_000_000 + 5 - limit) more bytes after the first \(limit)"), "\(note)")
        #expect(data.count < limit + 200)
    }

    @Test("a client a signal ends is a crash with that signal, also when the shell around it exits")
    func crashes() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("client.log")
        #expect(
            await ClientProcess.run("kill -SEGV $$", environment: [:], log: log, deadline: 60)
                == .crashed(signal: SIGSEGV))
        let wrapped = await ClientProcess.run(
            "sh -c 'kill -ABRT $$'; exit $?", environment: [:], log: log, deadline: 60)
        #expect(wrapped == .crashed(signal: SIGABRT))
        #expect(await ClientProcess.run("exit 1", environment: [:], log: log, deadline: 60) == .exited(1))
    }

    @Test("at the deadline the whole group is stopped, a background child included")
    func deadline() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let end = await ClientProcess.run(
            "sleep 300 & echo $! > '\(folder.path)/pid'; wait", environment: [:],
            log: folder.appendingPathComponent("client.log"), deadline: 0.5)
        #expect(end == .deadline(0.5))
        let pid = try Self.background(folder)
        #expect(pid > 0)
        #expect(await Self.gone(pid))
    }

    @Test("a cancelled caller stops the group; a command that leaves a child behind has it stopped when it ends")
    func cancelled() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("client.log")
        let task = Task {
            await ClientProcess.run(
                "sleep 300 & echo $! > '\(folder.path)/pid'; wait", environment: [:], log: log, deadline: 600)
        }
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("pid").path) {
            try await Task.sleep(for: .milliseconds(10))
        }
        task.cancel()
        _ = await task.value
        #expect(await Self.gone(try Self.background(folder)))
        try FileManager.default.removeItem(at: folder.appendingPathComponent("pid"))
        // The shell exits at once, its background sleep still running: stopped with it.
        let end = await ClientProcess.run(
            "sleep 300 & echo $! > '\(folder.path)/pid'", environment: [:], log: log, deadline: 600)
        #expect(end == .exited(0))
        #expect(await Self.gone(try Self.background(folder)))
    }
}
