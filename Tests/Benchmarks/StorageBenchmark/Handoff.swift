// What the journal's design costs a serial append beyond its `write` and `fdatasync`: the caller
// hands its record to the writer thread (which it wakes) and is resumed on the concurrency pool
// once the record is durable (which wakes a pool thread). This measures that round trip with
// nothing written: a thread that waits on a semaphore and resumes the continuation it finds, and
// one task that awaits it again and again, as a serial appender does.
import BenchmarkSupport
import Foundation
import Synchronization

enum Handoff {
    /// Round trips for `duration`: the task stores its continuation and signals the thread, the
    /// thread wakes and resumes it.
    static func run(duration: Duration) async -> Measured {
        let relay = Relay()
        let thread = Thread { relay.loop() }
        thread.start()
        let clock = ContinuousClock()
        let start = clock.now
        let end = start.advanced(by: duration)
        var count = 0
        while clock.now < end {
            await withCheckedContinuation { continuation in
                relay.waiting.withLock { $0 = continuation }
                relay.wakeup.signal()
            }
            count += 1
        }
        let seconds = (clock.now - start).seconds
        relay.stopping.store(true, ordering: .sequentiallyConsistent)
        relay.wakeup.signal()
        relay.done.wait()
        return Measured(count: count, seconds: seconds, deviceBytes: nil)
    }

    private final class Relay: Sendable {
        let wakeup = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let waiting = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let stopping = Atomic<Bool>(false)

        func loop() {
            while true {
                wakeup.wait()
                if stopping.load(ordering: .sequentiallyConsistent) { break }
                waiting.withLock { $0.take() }?.resume()
            }
            done.signal()
        }
    }
}
