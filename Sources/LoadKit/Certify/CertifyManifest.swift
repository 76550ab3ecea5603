import FakeFrontmail
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Several clients to certify in one run (`certify --clients FILE`, docs/certify.md): each with
/// its command, its claim and the cases it is expected to fail. With a manifest, `certify` is a
/// gate: it exits 0 only when every client fails exactly its expected cases, so a client that
/// changes behaviour (a new version of a library) is noticed.
package struct CertifyManifest: Sendable, Decodable {
    package struct Entry: Sendable, Decodable {
        /// The command, run as `/bin/sh -c COMMAND` from the current folder.
        package var command: String
        /// The claim file, relative to the current folder (nil: the contract's defaults).
        package var policy: String?
        /// The cases it is expected to fail, by name (`retry-after.fraction`; a number such as
        /// `2.3` is read for one release, `CertifyCase.named`).
        package var expectedFailures: [String]
        /// A program this client needs: a name looked up on PATH (`curl`) or a path
        /// (`.build/certify-venv/bin/python`); without it the client is skipped, and that is said.
        package var requires: String?

        private enum CodingKeys: String, CodingKey, CaseIterable { case command, policy, expectedFailures, requires }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
            command = try container.decode(String.self, forKey: .command)
            policy = try container.decodeIfPresent(String.self, forKey: .policy)
            expectedFailures = try container.decodeIfPresent([String].self, forKey: .expectedFailures) ?? []
            requires = try container.decodeIfPresent(String.self, forKey: .requires)
        }
    }

    package var clients: [Entry]

    private enum CodingKeys: String, CodingKey, CaseIterable { case clients }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
        clients = try container.decode([Entry].self, forKey: .clients)
    }

    package func validate() throws(InputError) {
        try InputError.check(clients.count, in: 1...32, "clients", unit: " clients")
        for (index, client) in clients.enumerated() {
            let path = "clients[\(index)]"
            guard (1...4096).contains(client.command.utf8.count), !client.command.contains("\0") else {
                throw InputError(path: path + ".command", reason: "must be 1-4096 bytes of text")
            }
            if let policy = client.policy, policy.isEmpty || policy.contains("\0") {
                throw InputError(path: path + ".policy", reason: "must name a file")
            }
            for (caseIndex, id) in client.expectedFailures.enumerated() where CertifyCase.named(id) == nil {
                throw InputError(
                    path: path + ".expectedFailures[\(caseIndex)]",
                    reason: "'\(id.prefix(60))' names no case (`certify --list` gives their names)")
            }
            if let requires = client.requires,
                requires.isEmpty || requires.utf8.count > 1024
                    || !requires.allSatisfy({ $0.isLetter || $0.isNumber || "-_./".contains($0) })
            {
                throw InputError(path: path + ".requires", reason: "must be a program's name or path")
            }
        }
    }

    /// Checks client `index`'s expected failures against its claim: a case that can never FAIL for
    /// it (informational, or NOT APPLICABLE to what it claims) would make the gate fail forever.
    package func checkExpectedFailures(of index: Int, claim: ClientClaim) throws(InputError) {
        for (caseIndex, id) in clients[index].expectedFailures.enumerated() {
            guard let certifyCase = CertifyCase.named(id) else { continue }
            let path = "clients[\(index)].expectedFailures[\(caseIndex)]"
            if certifyCase.weight == .informational {
                throw InputError(
                    path: path,
                    reason: "\(certifyCase.name) is informational: it never FAILs, so it cannot be expected to")
            }
            if let reason = certifyCase.notApplicable(to: claim) {
                throw InputError(
                    path: path, reason: "\(certifyCase.name) is NOT APPLICABLE to this client (\(reason))")
            }
        }
    }

    /// The cases client `index` expects to fail, by name.
    package func expectedNames(of index: Int) -> Set<String> {
        Set(clients[index].expectedFailures.compactMap { CertifyCase.named($0)?.name })
    }

    /// The expected failures written as numbers (`2.3`) with the names to write instead: read for
    /// one release, then refused.
    package var numberedFailures: [(number: String, name: String)] {
        clients.flatMap(\.expectedFailures).filter(CertifyCase.isNumber).compactMap { number in
            CertifyCase.named(number).map { (number, $0.name) }
        }
    }

    /// The program a client's command starts, when it is a plain word the shell would look up (no
    /// variable, builtin, quote or operator), else nil: certify checks it exists before it runs
    /// 75 cases that would each say only that no send reached the server.
    package static func program(of command: String) -> String? {
        guard let first = command.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init),
            !first.contains("="), !Self.shellWords.contains(first),
            first.allSatisfy({ $0.isLetter || $0.isNumber || "-_./+".contains($0) })
        else { return nil }
        return first
    }

    private static let shellWords: Set<String> = [
        ".", "cd", "exec", "eval", "export", "set", "command", "source", "if", "for", "while", "case", "{", "(", "!",
        "time", "ulimit", "umask", "trap", "unset", "readonly", "test", "[", "true", "false", ":",
    ]

    /// Whether `program` can be run: a path that is executable, or a name found on PATH.
    package static func available(_ program: String) -> Bool {
        if program.contains("/") { return access(program, X_OK) == 0 }
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.contains { access("\($0)/\(program)", X_OK) == 0 }
    }

    package static func load(file: String) throws(InputFileError) -> CertifyManifest {
        try InputFileError.decode(
            CertifyManifest.self, from: InputFileError.read(file), file: file,
            validate: { (manifest) throws(InputError) in try manifest.validate() })
    }
}
