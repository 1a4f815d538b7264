#if canImport(Glibc)
import Glibc
#endif
#if canImport(CDispatch)
import CDispatch  // glibc's `stat` and `timespec` members: on Linux the compiler finds them through it
#endif
import Networking
import ServiceLifecycle

/// Resumes delivery paused by a refused token once the token file changes: every `interval` it
/// looks at the file (its inode, size and modification time); when it differs from what it was
/// before the pause, the survey client reads the token again and the worker resumes.
struct TokenFileWatcher: Service {
    let path: String
    let worker: DeliveryWorker
    let client: SurveyClient
    var interval: Duration = .seconds(2)
    var clock: any Clock<Duration> = ContinuousClock()

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
        // The file as it was while delivery ran (updated every round until a pause).
        var beforePause = Self.fingerprint(path)
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { [clock, interval] in try await clock.sleep(for: interval) }
            } catch {
                return
            }
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
}
