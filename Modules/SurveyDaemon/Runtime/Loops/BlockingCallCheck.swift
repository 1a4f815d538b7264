import NIOPosix
import Storage

/// The rule that keeps the daemon's connections responsive: nothing reachable from a request
/// handled on an event loop blocks that loop's thread. Request handling runs on the loop that
/// reads the connection (``EventLoopTaskExecutor``), and work that may block escapes to the
/// concurrency pool (`onPool`) or to NIO's blocking-I/O thread pool. This is the check of the
/// rule: in debug builds, the Storage module's every system call, the journals' closing and
/// the peer check's `/proc` reads trap when made on an event loop, so that every test that runs
/// a daemon checks every path it takes. Release builds check nothing.
enum BlockingCallCheck {
    /// Why `call` must not be made on this thread, or nil when it may (not an event loop).
    static func violation(_ call: String) -> String? {
        guard let loop = MultiThreadedEventLoopGroup.currentEventLoop else { return nil }
        return "\(call) blocks, and was called on the event loop \(loop); run it on the concurrency pool (onPool) or NIO's thread pool"
    }

    /// Traps in debug builds when `call` is made on an event loop.
    static func assertMayBlock(_ call: @autoclosure () -> String) {
        assert(violation(call()) == nil, violation(call()) ?? "")
    }

    /// The file operations the daemon gives the Storage module: the system's, checked in debug
    /// builds.
    static var fileOperations: JournalFileOperations {
        #if DEBUG
        JournalFileOperations().checkingCalls { call in assertMayBlock("the file operation \(call)") }
        #else
        JournalFileOperations()
        #endif
    }
}
