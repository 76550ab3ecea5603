import Foundation
import LoadKit

exit(FrontmailBench.main(Array(CommandLine.arguments.dropFirst())).rawValue)
