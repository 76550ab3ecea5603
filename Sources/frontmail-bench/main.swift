import Foundation
import LoadKit

exit(await FrontmailBench.main(Array(CommandLine.arguments.dropFirst())).rawValue)
