import BenchKit
import Testing

@Suite("--profile names a group the benchmark runs")
struct ProfileOptionTests {
    let groups = ["send_path", "urlsession"]

    @Test("GROUP/WORKLOAD of a known group passes; the workload is checked when its group runs")
    func known() {
        #expect(profileProblem("send_path/sdk_in_process_fake", groups: groups) == nil)
        #expect(profileProblem("urlsession/raw", groups: groups) == nil)
    }

    @Test("an unknown group, or no workload, is named with the option and the groups there are")
    func unknown() {
        #expect(
            profileProblem("small_form/frontmail_value", groups: groups)
                == "--profile small_form/frontmail_value: no group small_form (send_path, urlsession)")
        for bad in ["send_path", "send_path/", "/x", ""] {
            #expect(profileProblem(bad, groups: groups) != nil, "\(bad)")
        }
        #expect(profileProblem("send_path", groups: groups) == "--profile send_path: expected GROUP/WORKLOAD")
    }
}
