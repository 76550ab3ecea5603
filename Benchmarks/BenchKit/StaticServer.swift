import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// nginx answering every request with one canned 202: a server faster than any client measured
/// against it (wrk reaches well over 100k requests/s on it here, URLSession about 2.5k), so the
/// clients are what a comparison against it measures. One process (`master_process off`), on
/// 127.0.0.1, killed by its PID when the benchmark is done.
public final class StaticServer {
    public let port: Int
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    private let process: Process
    private let folder: URL

    /// The nginx binary: `FRONTMAIL_NGINX`, else `nginx` on the PATH or in /usr/sbin. Nil when none
    /// is installed (Debian: `apt-get install nginx-light`).
    public static func nginxPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let chosen = environment["FRONTMAIL_NGINX"], !chosen.isEmpty {
            return FileManager.default.isExecutableFile(atPath: chosen) ? chosen : nil
        }
        let folders =
            (environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/local/sbin"]
        return folders.map { $0 + "/nginx" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts nginx answering `body` with status `status`; nil (and a reason) when it cannot.
    public static func start(status: Int, body: String) -> (server: StaticServer?, problem: String?) {
        guard let nginx = nginxPath() else { return (nil, "nginx is not installed (apt-get install nginx-light)") }
        var problem = "nginx did not start"
        for _ in 0..<3 {
            guard let port = freePort() else { return (nil, "no free port on 127.0.0.1") }
            do {
                if let server = try StaticServer(nginx: nginx, port: port, status: status, body: body) {
                    return (server, nil)
                }
            } catch {
                problem = "nginx did not start: \(error)"
            }
        }
        return (nil, problem)
    }

    private init?(nginx: String, port: Int, status: Int, body: String) throws {
        self.port = port
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "frontmail-nginx-\(ProcessInfo.processInfo.processIdentifier)-\(port)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let escaped = body.replacingOccurrences(of: "'", with: "\\'")
        let config = """
            worker_processes 1;
            master_process off;
            daemon off;
            pid \(folder.path)/nginx.pid;
            error_log \(folder.path)/error.log;
            events { worker_connections 8192; }
            http {
                access_log off;
                client_body_temp_path \(folder.path);
                keepalive_requests 1000000;
                keepalive_timeout 60s;
                server {
                    listen 127.0.0.1:\(port);
                    location / { default_type application/json; return \(status) '\(escaped)'; }
                }
            }

            """
        let configFile = folder.appendingPathComponent("nginx.conf")
        try config.write(to: configFile, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = ["-c", configFile.path, "-e", folder.appendingPathComponent("error.log").path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Ready when it accepts a connection (5 s at most).
        for _ in 0..<100 {
            if Self.accepts(port) { return }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        stop()
        return nil
    }

    /// Kills nginx (by its PID) and removes its folder.
    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }

    deinit { stop() }

    /// A port the kernel just handed out on 127.0.0.1 (bound to 0, then released).
    static func freePort() -> Int? {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { return nil }
        defer { close(socketFD) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { return nil }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketFD, $0, &length) }
        }
        return named == 0 ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }

    static func accepts(_ port: Int) -> Bool {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { return false }
        defer { close(socketFD) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
