import Testing

@testable import FrontmailBenchCLI
@testable import LoadKit

@Suite("list: the command")
struct ListCommandTests {
    @Test("list --metrics prints the catalog, a line per assertion name and none undeclared")
    func metricListing() {
        #expect(ListCommand.metricListing().allSatisfy { !$0.contains("undeclared") })
        #expect(ListCommand.metricListing().count == MetricCatalog.entries.count + 1)
    }

    @Test("list --metrics prints the catalog; with scenario files it is a usage error")
    func command() {
        #expect(ListCommand.run(["--metrics"]) == .success)
        #expect(ListCommand.run(["--metrics", "scenarios"]) == .usage)
    }
}
