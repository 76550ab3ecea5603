import Foundation

/// A run as JUnit XML for CI dashboards: a `testsuites` root, one `testsuite` per scenario and one
/// `testcase` per assertion. A failed assertion carries its actual value and the scenario's
/// description; a scenario without a verdict is one `testcase` with an `error`. Counts add up.
package enum JUnitWriter {
    package static func render(_ run: RunResults) -> String {
        var suites = ""
        var tests = 0
        var failures = 0
        var errors = 0
        var total = 0.0
        for scenario in run.scenarios {
            // Wall time where the scenario recorded it (policy seconds are not what CI waited).
            let time = scenario.value("run", "wall_elapsed") ?? scenario.value("run", "elapsed") ?? 0
            total += time
            let (cases, suiteTests, suiteFailures, suiteErrors) = testCases(scenario)
            tests += suiteTests
            failures += suiteFailures
            errors += suiteErrors
            suites +=
                "  <testsuite name=\"\(XML.escape(scenario.name))\" tests=\"\(suiteTests)\" failures=\"\(suiteFailures)\""
            suites += " errors=\"\(suiteErrors)\" skipped=\"0\" time=\"\(XML.number(time))\">\n"
            if !scenario.description.isEmpty {
                suites +=
                    "    <properties><property name=\"description\" value=\"\(XML.escape(scenario.description))\"/></properties>\n"
            }
            suites += cases + "  </testsuite>\n"
        }
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        text +=
            "<testsuites name=\"frontmail-bench \(XML.escape(run.runID))\" tests=\"\(tests)\" failures=\"\(failures)\""
        text += " errors=\"\(errors)\" time=\"\(XML.number(total))\">\n"
        return text + suites + "</testsuites>\n"
    }

    /// A scenario's test cases: one per assertion, or one `error` when it has no verdict (a crash's
    /// summary as the message, its backtrace as the body); with its counts.
    private static func testCases(_ scenario: RunResults.ScenarioEntry) -> (
        cases: String, tests: Int, failures: Int, errors: Int
    ) {
        var cases = ""
        var suiteFailures = 0
        var suiteErrors = 0
        var suiteTests = 0
        if let error = scenario.error {
            suiteTests = 1
            suiteErrors = 1
            cases += "    <testcase name=\"run\" classname=\"\(XML.escape(scenario.name))\" time=\"0\">\n"
            if let summary = ChildCrash.summaryLine(of: error) {
                // The crash's summary as the message, its backtrace as the body.
                cases +=
                    "      <error message=\"\(XML.escape(summary))\" type=\"crash\">\(XML.escape(error))</error>\n"
            } else {
                cases += "      <error message=\"\(XML.escape(error))\" type=\"could_not_run\"/>\n"
            }
            cases += "    </testcase>\n"
        } else {
            for check in scenario.checks {
                suiteTests += 1
                let head =
                    "    <testcase name=\"\(XML.escape(check.assertion))\" classname=\"\(XML.escape(scenario.name))\" time=\"0\""
                if check.passed {
                    cases += head + "/>\n"
                } else {
                    suiteFailures += 1
                    let message = "\(check.assertion): actual \(check.actual), expected \(check.expected)"
                    cases += head + ">\n"
                    cases += "      <failure message=\"\(XML.escape(message))\" type=\"assertion\">"
                    cases += XML.escape(message + "\n" + scenario.description) + "</failure>\n"
                    cases += "    </testcase>\n"
                }
            }
        }
        return (cases, suiteTests, suiteFailures, suiteErrors)
    }
}

/// Escaping and numbers for the XML the reports write (SVG, JUnit, HTML).
enum XML {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            // Control characters other than tab and newlines are not allowed in XML 1.0.
            case _ where scalar.value < 0x20 && scalar != "\t" && scalar != "\n" && scalar != "\r":
                out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A number with at most three decimals, no trailing zeros, no exponent (deterministic).
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}
