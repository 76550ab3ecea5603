import Foundation
import FrontmailBenchCLI

exit(await FrontmailBench.main(Array(CommandLine.arguments.dropFirst())).rawValue)
