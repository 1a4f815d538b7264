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
/// The thread runs from ``start(directory:changed:)`` until ``stop()`` (which does not wait
/// for it: it ends as soon as it reads the stop signal, and closes both descriptors).
final class DirectoryWatch: Sendable {
    /// The write end of the pipe whose read end the thread polls beside the watch.
    private let stopDescriptor: Int32

    private init(stopDescriptor: Int32) {
        self.stopDescriptor = stopDescriptor
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
        let thread = Thread { Self.wait(watch: watch, stop: stop, changed: changed) }
        thread.name = "directory-watch"
        thread.start()
        return .success(DirectoryWatch(stopDescriptor: ends[1]))
    }

    /// Ends the thread's wait (it closes the pipe's read end; this closes the write end).
    func stop() {
        var one: UInt8 = 1
        _ = write(stopDescriptor, &one, 1)
        close(stopDescriptor)
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
