#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(CDispatch)
import CDispatch  // glibc's `stat` and `timespec` members: on Linux the compiler finds them through it
#endif

/// A mutex with a condition variable whose timed waits run on `CLOCK_MONOTONIC`, for the log
/// writer's bounded waits. Foundation's `NSCondition.wait(until:)` takes a wall-clock `Date`: a
/// step of the wall clock back while it waits would make the wait a day longer (a process that
/// flushes its log before it exits would hang), a step forward would end it early. The monotonic
/// clock does not count a suspended machine's sleep, which a wait of a few seconds for a log
/// line does not need.
final class MonotonicCondition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        #if canImport(Glibc)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        #endif
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    func broadcast() { pthread_cond_broadcast(condition) }

    /// Waits until woken (the lock is held before and after).
    func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits until woken or `deadline` (from ``deadline(after:)``) has passed; false when it
    /// has passed (the lock is held before and after).
    func wait(until deadline: timespec) -> Bool {
        var deadline = deadline
        return pthread_cond_timedwait(condition, mutex, &deadline) == 0
    }

    /// The moment `duration` from now on the monotonic clock, for ``wait(until:)``.
    static func deadline(after duration: Duration) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        // A negative duration is now; a very long one a century from now.
        let (seconds, attoseconds) = max(duration, .zero).components
        var nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
        var wholeSeconds = Int(now.tv_sec) + Int(min(seconds, 100 * 365 * 86_400))
        if nanoseconds >= 1_000_000_000 {
            nanoseconds -= 1_000_000_000
            wholeSeconds += 1
        }
        return timespec(tv_sec: wholeSeconds, tv_nsec: nanoseconds)
    }
}
