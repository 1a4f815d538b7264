import Foundation
import SurveyTesting
import Testing

/// A real surveyd whose wall clock alone steps (the `LD_PRELOAD` shim of ``WallClockShift``; its
/// monotonic clock and its sleeps keep the real time), as NTP steps a Raspberry Pi's clock: every
/// timeout and delay keeps its length. Each case prints what it measured (`measured:` lines).
@Suite(.serialized, .timeLimit(.minutes(10)), .enabled(if: WallClockShift.available, "needs a C compiler and Linux to build the wall clock shim"))
struct WallClockStepEndToEndTests {
    static let day = 86_400.0
    /// The words of ``Stack/common`` that no file may hold once the answers are erased.
    static let words = ["Kim Minsu", "kim@example.com"]

    /// A stack whose daemon will run on a shifted wall clock starting at `offset` seconds.
    static func stack(offset: Double = 0) async throws -> (Stack, WallClockShift) {
        let stack = try Stack()
        stack.deadline = .seconds(180)
        let shift = try await WallClockShift(in: stack.dir.path, offset: offset)
        try await stack.startMock()
        return (stack, shift)
    }

    /// Seconds since `start` on the test's monotonic clock.
    static func since(_ start: ContinuousClock.Instant) -> Double {
        let (seconds, attoseconds) = start.duration(to: .now).components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Answers the whole survey (common, then stage 1): two uploads, the session closed `thanks`.
    static func wholeSurvey(_ stack: Stack) async throws {
        _ = try await stack.ctl(["start", "--lang", "en"])
        try await stack.answer(Stack.common + Stack.stage1.dropLast())
        let last = try await stack.json(["answer"] + Stack.stage1.last!)
        #expect(stack.outcome(last) == "thanks", "\(last)")
    }

    /// Waits until no file of the state directory holds the respondent's words; the seconds it
    /// took from `start`, nil when they were still there after `timeout`.
    static func erased(_ stack: Stack, from start: ContinuousClock.Instant, timeout: Duration = .seconds(40)) async throws -> Double? {
        let gone = try await stack.waitFor("the answers erased from the disk", timeout: timeout, every: .milliseconds(100)) {
            DiskSearch.find(words, under: stack.state).isEmpty
        }
        return gone ? since(start) : nil
    }

    /// Booted with the clock at 2001 (a Pi without a real-time clock), a respondent finishes,
    /// then NTP steps the clock 25 years forward: each stage delivered once, the answers erased
    /// after the delay (not at once because 25 years seem to have passed).
    @Test func bootAt2001ThenNTPStepsToNow() async throws {
        let offset = Date(timeIntervalSince1970: 978_307_200).timeIntervalSinceNow  // 2001-01-01
        let (stack, shift) = try await Self.stack(offset: offset)
        try await stack.startDaemon(environment: shift.environment.merging(["SURVEYD_ERASURE_DELAY": "5"]) { $1 })
        let status = try await stack.status()
        #expect((status["startedAt"] as? String)?.hasPrefix("2001-") == true, "the daemon runs at 2001: \(status["startedAt"] ?? "")")
        try await Self.wholeSurvey(stack)
        let closed = ContinuousClock.now
        try shift.set(offset: 0)
        let stepped = Self.since(closed)
        let seconds = try await Self.erased(stack, from: closed)
        #expect(seconds != nil)
        // Delivered once each: no upload again after the step.
        try await Task.sleep(for: .seconds(1))
        let records = try stack.records()
        #expect(records.map { $0["typeID"] as? String } == ["common", "1"], "\(records)")
        #expect(Set(records.compactMap { $0["idempotencyKey"] as? String }).count == 2)
        let metrics = try await UnixHTTP.request(socket: stack.socket, method: "GET", target: "/metrics")
        #expect(metrics.bodyText.contains("surveyd_wall_clock_steps_total"), "the metric is exported")
        print("measured: boot at 2001, step to now: delivered \(records.count) uploads once each; erased \(seconds.map { String(format: "%.1f", $0) } ?? "never") s after the session closed (delay 5 s; stepped \(String(format: "%.1f", stepped)) s after closing)")
        await stack.finish()
    }

    /// Delivered, then the clock steps back a day: erased the delay (3 s) later, not a day late.
    @Test func deliveredThenStepBackADay() async throws {
        let (stack, shift) = try await Self.stack()
        try await stack.startDaemon(environment: shift.environment.merging(["SURVEYD_ERASURE_DELAY": "3"]) { $1 })
        try await Self.wholeSurvey(stack)
        let closed = ContinuousClock.now
        try shift.set(offset: -Self.day)
        let seconds = try await Self.erased(stack, from: closed)
        #expect(seconds != nil, "the answers were still on disk 40 s after the delivery")
        print("measured: delivered, step back 1 day, erasureDelaySeconds 3: erased \(seconds.map { String(format: "%.1f", $0) } ?? "never (> 40 s)") s after the session closed")
        await stack.finish()
    }

    /// A respondent walks away, the clock steps back a day: the session is closed after the idle
    /// timeout (4 s), not a day later, and the next person cannot continue it.
    @Test func respondentWalksAwayThenStepBackADay() async throws {
        let (stack, shift) = try await Self.stack()
        try await stack.startDaemon(["--idle-timeout", "4"], environment: shift.environment)
        _ = try await stack.ctl(["start", "--lang", "en"])
        try await stack.answer([Stack.common[0]])
        let left = ContinuousClock.now
        try shift.set(offset: -Self.day)
        let closed = try await stack.waitFor("the idle session closed", timeout: .seconds(40), every: .milliseconds(100)) {
            (try await stack.status()["sessions"] as? [[String: Any]])?.isEmpty == true
        }
        let seconds = Self.since(left)
        #expect(closed, "the session was still open 40 s after the respondent left")
        let next = try await stack.ctl(["answer", "kim@example.com"])
        #expect(next.status != 0, "nobody can continue the abandoned session: \(next.stdout)")
        print("measured: walked away, step back 1 day, idle timeout 4 s: session closed \(closed ? String(format: "%.1f", seconds) : "never (> 40)") s after the last answer")
        await stack.finish()
    }

    /// The clock steps a day forward while a respondent answers (the last answer half a second
    /// before): the next answer is accepted.
    @Test func stepForwardADayWhileARespondentAnswers() async throws {
        let (stack, shift) = try await Self.stack()
        try await stack.startDaemon(["--idle-timeout", "60"], environment: shift.environment)
        _ = try await stack.ctl(["start", "--lang", "en"])
        try await stack.answer([Stack.common[0]])
        try await Task.sleep(for: .milliseconds(500))
        try shift.set(offset: Self.day)
        let next = try await stack.ctl(["answer"] + Stack.common[1])
        #expect(next.status == 0 && next.stdout.contains("question 3 of 5"), "\(next.stdout) \(next.stderr)")
        let rest = try await stack.ctl(["answer"] + Stack.common[2])
        #expect(rest.status == 0, "\(rest.stdout) \(rest.stderr)")
        print("measured: step forward 1 day while answering (last answer 0.5 s before): next answer \(next.status == 0 ? "accepted" : "refused: \(next.stderr)")")
        await stack.finish()
    }

    /// An outage, the clock steps back a day, the server returns: the queued stage is delivered
    /// within the backoff cap (10 s) of the server's return.
    @Test func outageStepBackServerReturns() async throws {
        let (stack, shift) = try await Self.stack()
        try await stack.startDaemon(environment: shift.environment.merging(["SURVEYD_BACKOFF_CAP": "10"]) { $1 })
        try await stack.startAndAnswerAllButLast()
        await stack.stopMock()
        let last = try await stack.json(["answer"] + Stack.common.last!)
        #expect(stack.outcome(last) == "queued", "\(last)")
        try shift.set(offset: -Self.day)
        try await Task.sleep(for: .seconds(2))
        let returned = Date()
        try await stack.startMock()
        #expect(try await stack.waitFor("the upload at the server", timeout: .seconds(60), every: .milliseconds(100)) { try stack.records().count == 1 })
        let record = try #require(try stack.records().first)
        let received = try #require((record["receivedAt"] as? String).flatMap { try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse($0) }, "\(record)")
        let seconds = received.timeIntervalSince(returned)
        #expect(seconds < 60)
        print("measured: outage, step back 1 day, server returns, backoff cap 10 s: delivered \(String(format: "%.1f", seconds)) s after the server's return")
        await stack.finish()
    }
}
