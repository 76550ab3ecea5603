import Foundation
import FrontmailBenchCLI

FrontmailBench.startProcess()
exit(FrontmailBench.exitStatus(await FrontmailBench.main(Array(CommandLine.arguments.dropFirst()))))
