#if canImport(Glibc)
import Glibc
#endif
import Logging
#if canImport(CDispatch)
import CDispatch  // glibc's `stat` and `timespec` members: on Linux the compiler finds them through it
#endif
import Networking
import ServiceLifecycle

/// Resumes delivery paused by a refused token once the token file changes: whenever its
/// directory says an entry changed (``DirectoryWatch``, inotify: no timer), it looks at the file
/// (its inode, size and modification time); when it differs from what it was before the pause,
/// the survey client reads the token again and the worker resumes. Where the directory cannot
/// be watched (a warning says why), it looks every `interval` of the injected clock instead.
struct TokenFileWatcher: Service {
    let path: String
    let worker: DeliveryWorker
    let client: SurveyClient
    var interval: Duration = .seconds(2)
    var clock: any Clock<Duration> = ContinuousClock()
    /// Starts watching a directory, calling the closure on every change; the daemon's is
    /// ``DirectoryWatch``; tests may give one that always fails, to have the file polled.
    var watch: @Sendable (_ directory: String, _ changed: @escaping @Sendable () -> Void) -> Result<DirectoryWatch, DirectoryWatchError> = {
        DirectoryWatch.start(directory: $0, changed: $1)
    }
    var logger = Logger(label: "surveyd")

    /// What says the file changed, without reading the secret.
    struct Fingerprint: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int
        var modifiedNanoseconds: Int
    }

    static func fingerprint(_ path: String) -> Fingerprint? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Fingerprint(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: Int(info.st_mtim.tv_sec), modifiedNanoseconds: Int(info.st_mtim.tv_nsec))
    }

    func run() async throws {
        let changed = DeliveryWakeup()
        let directory = Self.directory(of: path)
        let watching: DirectoryWatch?
        let started = watch(directory, { [changed] in changed.wake() })
        switch started {
        case .success(let started): watching = started
        case .failure(let error):
            logger.warning("the token file's directory cannot be watched (\(error)); it is looked at every \(interval) instead", metadata: ["directory": "\(directory)"])
            watching = nil
        }
        await follow(changed, polling: watching == nil)
        // Its thread has ended when this returns: the daemon's stop finds it gone.
        await watching?.stop()
    }

    /// Looks at the file whenever `changed` wakes it (every `interval` when `polling`), until
    /// the daemon stops.
    private func follow(_ changed: DeliveryWakeup, polling: Bool) async {
        let timeline = Timeline(clock)
        // The file as it was while delivery ran (updated at every look until a pause).
        var beforePause = Self.fingerprint(path)
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            if await changed.sleep(polling ? interval : nil, on: timeline) == .stopping { return }
            let now = Self.fingerprint(path)
            guard await worker.snapshot.paused != nil else {
                beforePause = now
                continue
            }
            if now != beforePause {
                await client.reloadToken()
                await worker.resume(because: "the token file changed")
                beforePause = now
            }
        }
    }

    /// The directory that holds `path` (`.` for a bare name).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
