#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import class Foundation.Thread
import Logging
import ServiceLifecycle
import Synchronization
import WallClockTimer

/// Notices when the wall clock is set (NTP stepping a Raspberry Pi's clock, which boots with the
/// time it last saved; an operator's `date -s`), without polling: a thread of its own waits on a
/// `timerfd` armed with `TFD_TIMER_CANCEL_ON_SET`, which the kernel cancels when the clock is
/// set. It then compares the wall clock with the monotonic one (``WallClockStepMeter``): a step
/// of at least ``threshold``, forward or back, is logged once with its size and counted
/// (`surveyd_wall_clock_steps_total`). Nothing else changes: every timeout and delay of the
/// daemon is measured on the monotonic clock; dates people read follow the new time.
///
/// The thread starts in ``run()`` and ends at the graceful shutdown, before ``run()`` returns
/// (``threadRunning``: the daemon checks at its stop that no thread it started still runs).
/// Where there is no `timerfd`, a warning says steps go unnoticed, and the service just waits for
/// the shutdown.
final class WallClockWatcher: Service, Sendable {
    /// The smallest change of the wall clock against the monotonic one that is reported.
    let threshold: Duration
    /// Reads both clocks at one moment.
    let read: @Sendable () -> WallClockStepMeter.Reading
    let logger: Logger
    let metrics: DaemonMetrics
    /// Waits on the timer until the clock is set (1), the wait is stopped (0) or fails (-1):
    /// `wall_clock_timer_wait`; tests give one that says the clock was set when they step theirs.
    let waitForSet: @Sendable (_ timer: Int32, _ stop: Int32) -> Int32
    /// Told of every step reported, on the watching thread (the daemon retries at once what a
    /// clock that was not set held back: a server certificate it could not check).
    let onStep: @Sendable () -> Void
    private let state: Mutex<State>

    private struct State {
        var meter: WallClockStepMeter
        var threadRunning = false
        /// The descriptor that stops the thread's wait, while the thread has it open.
        var stopDescriptor: Int32?
        /// Waiting for the thread to end.
        var ended: [CheckedContinuation<Void, Never>] = []
    }

    /// - Parameters:
    ///   - clock: the monotonic clock steps are measured against (`ContinuousClock` in the
    ///     daemon: it counts the time a suspended machine slept, so a resume is no step).
    ///   - wall: the wall clock.
    ///   - waitForSet: the thread's wait (``waitForSet``).
    init(
        threshold: Duration = .seconds(5), clock: some Clock<Duration> = ContinuousClock(), wall: @escaping @Sendable () -> Date = { Date() },
        logger: Logger, metrics: DaemonMetrics, waitForSet: @escaping @Sendable (Int32, Int32) -> Int32 = { wall_clock_timer_wait($0, $1) },
        onStep: @escaping @Sendable () -> Void = {}
    ) {
        self.onStep = onStep
        let timeline = Timeline(clock)
        let read: @Sendable () -> WallClockStepMeter.Reading = { WallClockStepMeter.Reading(wall: wall(), elapsed: timeline.elapsed()) }
        self.threshold = threshold
        self.read = read
        self.logger = logger
        self.metrics = metrics
        self.waitForSet = waitForSet
        state = Mutex(State(meter: WallClockStepMeter(threshold: threshold, first: read())))
    }

    func run() async throws {
        guard start() else {
            try? await gracefulShutdown()
            return
        }
        try? await gracefulShutdown()
        await stop()
    }

    /// The clock was set (the kernel said so, or a test does): measures the change against the
    /// monotonic clock and reports it when it is a step. Returns the step reported.
    @discardableResult
    func clockWasSet() -> WallClockStepMeter.Step? {
        let reading = read()
        guard let step = state.withLock({ $0.meter.read(reading) }) else { return nil }
        let size = abs(step.seconds)
        logger.warning(
            "the wall clock was stepped \(step.forward ? "forward" : "back") by \(Self.describe(size)); timeouts and delays are measured on the monotonic clock and do not change, dates from now on follow the new time",
            metadata: ["stepSeconds": "\((step.seconds * 1000).rounded() / 1000)"])
        metrics.wallClockStepped(forward: step.forward)
        onStep()
        return step
    }

    /// Whether the watching thread runs.
    var threadRunning: Bool { state.withLock { $0.threadRunning } }

    /// Opens the timer and starts the thread; false (with a warning) when there is no timerfd.
    func start() -> Bool {
        var timer: Int32 = -1
        var stop: Int32 = -1
        guard wall_clock_timer_open(&timer, &stop) == 0 else {
            let reason = String(cString: strerror(errno))
            logger.warning("steps of the wall clock will not be noticed: no timerfd (\(reason)); timeouts and delays are measured on the monotonic clock all the same")
            return false
        }
        state.withLock {
            $0.threadRunning = true
            $0.stopDescriptor = stop
        }
        let thread = Thread { [self, timer, stop] in watch(timer: timer, stop: stop) }
        thread.name = "wall-clock-watch"
        thread.start()
        return true
    }

    /// Stops the thread and returns once it has ended.
    func stop() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let running = state.withLock { state -> Bool in
                guard state.threadRunning else { return false }
                state.ended.append(done)
                if let descriptor = state.stopDescriptor { wall_clock_timer_signal_stop(descriptor) }
                return true
            }
            if !running { done.resume() }
        }
    }

    /// The thread: waits for the clock to be set until it is stopped.
    private func watch(timer: Int32, stop: Int32) {
        while true {
            let result = waitForSet(timer, stop)
            if result == 1 {
                clockWasSet()
                continue
            }
            if result < 0 {
                let reason = String(cString: strerror(errno))
                logger.error("stopped watching the wall clock for steps: the timerfd failed (\(reason)); timeouts and delays are not affected")
            }
            break
        }
        state.withLock { $0.stopDescriptor = nil }
        wall_clock_timer_close(timer, stop)
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.threadRunning = false
            defer { state.ended = [] }
            return state.ended
        }
        for done in waiting { done.resume() }
    }

    /// A step's size for the log: seconds, or days, hours and minutes when it is long.
    static func describe(_ seconds: Double) -> String {
        if seconds < 120 { return "\((seconds * 10).rounded() / 10) s" }
        let whole = Int(seconds.rounded())
        let (days, rest) = whole.quotientAndRemainder(dividingBy: 86_400)
        let (hours, rest2) = rest.quotientAndRemainder(dividingBy: 3600)
        let minutes = rest2 / 60
        var parts: [String] = []
        if days > 0 { parts.append("\(days) d") }
        if hours > 0 { parts.append("\(hours) h") }
        if minutes > 0 || parts.isEmpty { parts.append("\(minutes) min") }
        return parts.joined(separator: " ") + " (\(whole) s)"
    }
}
