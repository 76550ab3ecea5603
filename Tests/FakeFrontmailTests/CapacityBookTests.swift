import Foundation
import Frontmail
import Testing

@testable import FakeFrontmail

/// The capacity calendar: schedules, abandoned work, and the series it integrates.
@Suite("capacity calendar: schedule windows, abandoned work, busy and queue series")
struct CapacityBookTests {
    static func model(_ json: String) throws -> CapacityModel {
        try #require(try FaultPlan.decode(Data(#"{"capacity": \#(json)}"#.utf8)).capacity)
    }

    static func start(_ admission: CapacityBook.Admission) -> Double? {
        if case .proceed(let booking) = admission { return booking.start }
        return nil
    }

    @Test("a window with fewer workers makes arrivals wait for a worker that exists; zero workers wait it out")
    func scheduleWindows() throws {
        var book = CapacityBook(
            model: try Self.model(
                #"{"workers": 2, "serviceTime": "1s", "schedule": [{"from": "10s", "to": "20s", "workers": 1}, {"from": "30s", "to": "40s", "factor": 0}]}"#
            ), seriesWidth: nil)
        // Before the window: two at once.
        do {
            let admitted = Self.start(book.admit(at: 0, service: 1))
            #expect(admitted == 0)
        }
        do {
            let admitted = Self.start(book.admit(at: 0, service: 1))
            #expect(admitted == 0)
        }
        // In the window one worker: the second waits for it.
        do {
            let admitted = Self.start(book.admit(at: 10, service: 1))
            #expect(admitted == 10)
        }
        do {
            let admitted = Self.start(book.admit(at: 10, service: 1))
            #expect(admitted == 11)
        }
        // No workers at all: the request starts when the window ends.
        do {
            let admitted = Self.start(book.admit(at: 32, service: 1))
            #expect(admitted == 40)
        }
        // After the windows: two workers again.
        do {
            let admitted = Self.start(book.admit(at: 50, service: 1))
            #expect(admitted == 50)
        }
        do {
            let admitted = Self.start(book.admit(at: 50, service: 1))
            #expect(admitted == 50)
        }
        do {
            let admitted = Self.start(book.admit(at: 50, service: 1))
            #expect(admitted == 51)
        }
    }

    @Test("shed mode sheds what a smaller window cannot start at once")
    func shedInWindow() throws {
        var book = CapacityBook(
            model: try Self.model(
                #"{"workers": 2, "serviceTime": "1s", "mode": "shed", "schedule": [{"from": "10s", "to": "20s", "factor": 0.5}]}"#
            ), seriesWidth: nil)
        do {
            let admitted = Self.start(book.admit(at: 10, service: 1))
            #expect(admitted == 10)
        }
        do {
            let admitted = book.admit(at: 10, service: 1)
            #expect(admitted == .shed)
        }
        do {
            let admitted = Self.start(book.admit(at: 20, service: 1))
            #expect(admitted == 20)
        }
        do {
            let admitted = Self.start(book.admit(at: 20, service: 1))
            #expect(admitted == 20)
        }
    }

    @Test("a window with more workers than the base adds workers only inside it")
    func moreWorkers() throws {
        var book = CapacityBook(
            model: try Self.model(
                #"{"workers": 1, "serviceTime": "1s", "schedule": [{"from": "5s", "to": "6s", "workers": 3}]}"#),
            seriesWidth: nil)
        do {
            let admitted = Self.start(book.admit(at: 0, service: 1))
            #expect(admitted == 0)
        }
        do {
            let admitted = Self.start(book.admit(at: 0, service: 1))
            #expect(admitted == 1)
        }
        do {
            let admitted = Self.start(book.admit(at: 5, service: 1))
            #expect(admitted == 5)
        }
        do {
            let admitted = Self.start(book.admit(at: 5, service: 1))
            #expect(admitted == 5)
        }
        do {
            let admitted = Self.start(book.admit(at: 5, service: 1))
            #expect(admitted == 5)
        }
        do {
            let admitted = Self.start(book.admit(at: 5, service: 1))
            #expect(admitted == 6)
        }
    }

    @Test("serve keeps abandoned work on the calendar; drop gives its time to the next arrival")
    func abandoned() throws {
        for (mode, nextStart) in [("serve", 3.0), ("drop", 2.0)] {
            var book = CapacityBook(
                model: try Self.model(#"{"workers": 1, "serviceTime": "1s", "abandoned": "\#(mode)"}"#),
                seriesWidth: nil)
            _ = book.admit(at: 0, service: 1)
            _ = book.admit(at: 0, service: 1)
            guard case .proceed(let waiting) = book.admit(at: 0, service: 1) else {
                Issue.record("not booked")
                return
            }
            #expect(waiting.start == 2)
            // The client leaves while it waits.
            do {
                let released = book.release(waiting, at: 0.5)
                #expect(released == (mode == "drop"))
            }
            do {
                let admitted = Self.start(book.admit(at: 0.6, service: 1))
                #expect(admitted == nextStart, "\(mode)")
            }
        }
        // Once its turn has come, the work is done either way.
        var book = CapacityBook(
            model: try Self.model(#"{"workers": 1, "serviceTime": "1s", "abandoned": "drop"}"#), seriesWidth: nil)
        guard case .proceed(let serving) = book.admit(at: 0, service: 1) else {
            Issue.record("not booked")
            return
        }
        let released = book.release(serving, at: 0.5)
        #expect(!released)
        do {
            let admitted = Self.start(book.admit(at: 0.6, service: 1))
            #expect(admitted == 1)
        }
    }

    @Test("the series integrates busy workers and waiting requests per bucket, and takes a drop back out")
    func series() throws {
        var book = CapacityBook(
            model: try Self.model(#"{"workers": 1, "serviceTime": "1s", "abandoned": "drop"}"#), seriesWidth: 1)
        _ = book.admit(at: 0, service: 1.5)
        guard case .proceed(let second) = book.admit(at: 0.5, service: 1) else {
            Issue.record("not booked")
            return
        }
        // busy: [0, 1.5) then [1.5, 2.5); waiting: [0.5, 1.5)
        let series = try #require(book.series)
        #expect(series.busy == [1, 1, 0.5])
        #expect(series.waiting == [0.5, 0.5])
        #expect(series.served == [0, 1, 1])
        #expect(series.dead.isEmpty)
        do {
            let released = book.release(second, at: 1.0)
            #expect(released)
        }
        let after = try #require(book.series)
        #expect(after.busy == [1, 0.5, 0])
        #expect(after.waiting == [0.5, 0])
        #expect(after.served == [0, 1, 0])
    }

    @Test("serve counts the work an abandoned request still takes as dead work, when its worker finishes it")
    func deadWork() throws {
        var book = CapacityBook(
            model: try Self.model(#"{"workers": 1, "serviceTime": "1s", "abandoned": "serve"}"#), seriesWidth: 1)
        _ = book.admit(at: 0, service: 1)
        guard case .proceed(let waiting) = book.admit(at: 0, service: 1) else {
            Issue.record("not booked")
            return
        }
        let released = book.release(waiting, at: 0.5)
        #expect(!released)
        let series = try #require(book.series)
        #expect(series.dead == [0, 0, 1])
        #expect(series.served == [0, 1, 1])
    }

    @Test("a schedule is validated: order, overlap, workers or factor, ranges")
    func validation() {
        let cases: [(String, String)] = [
            (#"[{"from": "10s", "to": "5s", "workers": 1}]"#, "capacity.schedule[0].to: must be after from"),
            (#"[{"from": "1s", "to": "5s"}]"#, "capacity.schedule[0]: give either workers or factor"),
            (#"[{"from": "1s", "to": "5s", "workers": 1, "factor": 0.5}]"#, "capacity.schedule[0]: give either"),
            (#"[{"from": "1s", "to": "5s", "factor": -1}]"#, "capacity.schedule[0].factor: must be 0-100"),
            (#"[{"from": "1s", "to": "5s", "workers": 100001}]"#, "capacity.schedule[0].workers: must be 0-100000"),
            (
                #"[{"from": "1s", "to": "5s", "workers": 1}, {"from": "4s", "to": "6s", "workers": 2}]"#,
                "capacity.schedule[1].from: windows must be in order and not overlap"
            ),
            (#"[{"from": "1s", "to": "5s", "workers": 1, "cores": 2}]"#, "cores"),
        ]
        for (schedule, expected) in cases {
            let json = #"{"capacity": {"workers": 2, "serviceTime": "1ms", "schedule": \#(schedule)}}"#
            do {
                _ = try FaultPlan.decode(Data(json.utf8))
                Issue.record("accepted: \(schedule)")
            } catch {
                #expect(error.description.contains(expected), "\(error.description)")
            }
        }
        let abandonedTypo = #"{"capacity": {"workers": 2, "serviceTime": "1ms", "abandoned": "keep"}}"#
        #expect(throws: InputError.self) { _ = try FaultPlan.decode(Data(abandonedTypo.utf8)) }
    }

    @Test("time scaling scales the windows")
    func scaling() throws {
        let model = try Self.model(
            #"{"workers": 4, "serviceTime": "10ms", "schedule": [{"from": "10s", "to": "20s", "factor": 0.25}]}"#)
        let scaled = model.scaled(by: 0.01)
        #expect(scaled.workers(at: 0.05) == 4)
        #expect(scaled.workers(at: 0.15) == 1)
        #expect(scaled.workers(at: 0.2) == 4)
    }

    @Test("in process, a dropped request is not processed, its key is free again, and the ledger says dropped")
    func droppedThroughTheCore() async throws {
        let plan = try FaultPlan.decode(
            Data(#"{"capacity": {"workers": 1, "serviceTime": "200ms", "abandoned": "drop"}}"#.utf8))
        let core = FakeFrontmailCore(plan: plan)
        let first = core.arrive(Requests.send(key: "key-a"), connection: 1)
        let second = core.arrive(Requests.send(key: "key-b"), connection: 2)
        #expect(second.wait > first.wait)
        // The second request's client leaves before its turn.
        #expect(core.complete(second, clientGone: true) == nil)
        core.finished(second, status: 0, clientGone: true)
        let records = core.ledger.records
        #expect(records[1].action == .dropped && records[1].clientGone && !records[1].effect)
        // Its key is free: the same key is processed again (not 409 in progress).
        let retry = core.arrive(Requests.send(key: "key-b"), connection: 3)
        #expect(retry.wait < second.wait)
        #expect(response(core.complete(retry))?.status == 202)
        #expect(core.ledger.records[2].effect)
    }
}
