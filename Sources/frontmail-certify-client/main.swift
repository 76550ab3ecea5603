import Foundation
import FrontmailMutants
import LoadKit

// The Swift SDK as a `frontmail-bench certify` client (docs/certify.md): reads the protocol's
// environment, makes every send through `Frontmail.send` over URLSession and exits 0; the
// server's record is what is judged. `--broken NAME` applies one of explore's deliberately broken
// clients (`frontmail-bench explore --list-broken`) that behave the same on the real clock.

let usage = """
    usage: frontmail-certify-client [--broken NAME]
    Run by `frontmail-bench certify --client frontmail-certify-client --policy certify/clients/swift-sdk.json`.
    Broken clients: \(SDKCertifyClient.brokenOnRealClock.sorted().joined(separator: ", "))
    """

var broken: BrokenClient?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--broken":
        guard let name = arguments.popFirst() else {
            FileHandle.standardError.write(Data("frontmail-certify-client: --broken needs a name\n\(usage)\n".utf8))
            exit(64)
        }
        guard SDKCertifyClient.brokenOnRealClock.contains(name), let client = BrokenClient.named(name) else {
            FileHandle.standardError.write(
                Data("frontmail-certify-client: --broken '\(name.prefix(80))' is none of these\n\(usage)\n".utf8))
            exit(64)
        }
        broken = client
    case "--help", "-h":
        print(usage)
        exit(0)
    default:
        FileHandle.standardError.write(Data("frontmail-certify-client: unknown argument\n\(usage)\n".utf8))
        exit(64)
    }
}
let (request, problem) = SDKCertifyClient.request(from: ProcessInfo.processInfo.environment)
guard let request else {
    FileHandle.standardError.write(Data("frontmail-certify-client: \(problem ?? "no request")\n".utf8))
    exit(64)
}
await SDKCertifyClient.run(request, broken: broken)
exit(0)
