import NIOPosix
import Synchronization

/// Writes a small record's newest bytes on NIO's thread pool, where blocking file work belongs,
/// one write at a time: bytes handed over while a write runs replace any that wait, so the last
/// bytes handed over are the last written. Handing over never waits; ``flushed()`` waits until
/// everything handed over is written.
final class LatestRecordWriter: Sendable {
    private struct State {
        var waiting: [UInt8]?
        var writing = false
        var idle: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())
    private let pool: NIOThreadPool
    /// The blocking write, on a thread of `pool`.
    private let write: @Sendable ([UInt8]) -> Void

    init(pool: NIOThreadPool = .singleton, write: @escaping @Sendable ([UInt8]) -> Void) {
        self.pool = pool
        self.write = write
    }

    /// Hands `bytes` over to be written; returns at once.
    func submit(_ bytes: [UInt8]) {
        let start = state.withLock { state -> Bool in
            state.waiting = bytes
            guard !state.writing else { return false }
            state.writing = true
            return true
        }
        // A pool that has stopped hands the work back as cancelled: it is written all the same,
        // on the thread that says so.
        if start { pool.submit { [self] _ in drain() } }
    }

    /// Returns once every byte handed over so far is written.
    func flushed() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                guard state.writing else { return true }
                state.idle.append(done)
                return false
            }
            if idle { done.resume() }
        }
    }

    private enum Step {
        case write([UInt8])
        case done(waking: [CheckedContinuation<Void, Never>])
    }

    /// Writes what waits until nothing does.
    private func drain() {
        while true {
            let step = state.withLock { state -> Step in
                if let waiting = state.waiting {
                    state.waiting = nil
                    return .write(waiting)
                }
                state.writing = false
                defer { state.idle = [] }
                return .done(waking: state.idle)
            }
            switch step {
            case .write(let bytes): write(bytes)
            case .done(let waking):
                for done in waking { done.resume() }
                return
            }
        }
    }
}
