#if canImport(Glibc)
import Glibc
#endif
import class Foundation.Thread
import Synchronization

/// Says when the entries of a directory change (a file written, replaced, renamed, removed or
/// its mode changed), without polling: a thread of its own waits on an `inotify` descriptor and
/// calls `changed` for every batch of events. Watching the directory rather than the file sees
/// a file replaced by a rename, as editors, `install` and systemd's credentials do.
///
/// The thread runs from ``start(directory:changed:)`` until ``stop()``, which returns once it has
/// ended (it closes both of its descriptors on the way out).
final class DirectoryWatch: Sendable {
    private struct State {
        /// The write end of the pipe whose read end the thread polls beside the watch; -1 once
        /// the stop signal is sent.
        var stopDescriptor: Int32
        var threadRunning = true
        /// Who waits in ``stop()`` for the thread to end.
        var ended: [CheckedContinuation<Void, Never>] = []
    }
    private let state: Mutex<State>
    /// The directory watched, for the daemon's list of its threads.
    let directory: String

    private init(directory: String, stopDescriptor: Int32) {
        self.directory = directory
        state = Mutex(State(stopDescriptor: stopDescriptor))
    }

    /// Starts watching `directory`; nil, with the reason, when it cannot be watched (no
    /// inotify, too many watches, no such directory).
    static func start(directory: String, changed: @escaping @Sendable () -> Void) -> Result<DirectoryWatch, DirectoryWatchError> {
        let watch = inotify_init1(Int32(IN_CLOEXEC))
        guard watch >= 0 else { return .failure(DirectoryWatchError(errno: errno)) }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF)
        guard inotify_add_watch(watch, directory, mask) >= 0 else {
            let error = DirectoryWatchError(errno: errno)
            close(watch)
            return .failure(error)
        }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            let error = DirectoryWatchError(errno: errno)
            close(watch)
            return .failure(error)
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let stop = ends[0]
        let watching = DirectoryWatch(directory: directory, stopDescriptor: ends[1])
        let thread = Thread { [watching] in
            Self.wait(watch: watch, stop: stop, changed: changed)
            watching.threadEnded()
        }
        thread.name = "directory-watch"
        thread.start()
        return .success(watching)
    }

    /// Whether the watching thread runs.
    var threadRunning: Bool { state.withLock { $0.threadRunning } }

    /// Ends the thread's wait (it closes the pipe's read end; this closes the write end) and
    /// returns once the thread has ended. Stopping again only waits.
    func stop() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let running = state.withLock { state -> Bool in
                if state.stopDescriptor >= 0 {
                    var one: UInt8 = 1
                    _ = write(state.stopDescriptor, &one, 1)
                    close(state.stopDescriptor)
                    state.stopDescriptor = -1
                }
                guard state.threadRunning else { return false }
                state.ended.append(done)
                return true
            }
            if !running { done.resume() }
        }
    }

    /// The thread's last act: whoever waits in ``stop()`` goes on.
    private func threadEnded() {
        let waiting = state.withLock { state in
            state.threadRunning = false
            defer { state.ended = [] }
            return state.ended
        }
        for done in waiting { done.resume() }
    }

    /// The thread: reads events until the stop signal (or a failure), then closes both.
    private static func wait(watch: Int32, stop: Int32, changed: @Sendable () -> Void) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        loop: while true {
            var fds = [pollfd(fd: watch, events: Int16(POLLIN), revents: 0), pollfd(fd: stop, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            if fds[1].revents != 0 { break }
            guard fds[0].revents != 0 else { continue }
            let got = buffer.withUnsafeMutableBytes { read(watch, $0.baseAddress, $0.count) }
            if got < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard got > 0 else { break loop }
            changed()
        }
        close(watch)
        close(stop)
    }
}

/// Why a directory cannot be watched.
struct DirectoryWatchError: Error, CustomStringConvertible {
    var errno: Int32
    var description: String { String(cString: strerror(errno)) }
}

/// The directory watches a daemon started, so that its stop can wait for their threads and
/// check that none still runs.
final class DirectoryWatches: Sendable {
    private let started = Mutex<[DirectoryWatch]>([])

    init() {}

    /// ``DirectoryWatch/start(directory:changed:)``, remembering the watch.
    func start(directory: String, changed: @escaping @Sendable () -> Void) -> Result<DirectoryWatch, DirectoryWatchError> {
        let result = DirectoryWatch.start(directory: directory, changed: changed)
        if case .success(let watch) = result { started.withLock { $0.append(watch) } }
        return result
    }

    /// Stops every watch and returns once their threads have ended.
    func stopAll() async {
        for watch in started.withLock({ $0 }) { await watch.stop() }
    }

    /// The directories whose watching thread still runs.
    var running: [String] { started.withLock { $0.filter(\.threadRunning).map(\.directory) } }
}
