#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The process's limit on open file descriptors (`RLIMIT_NOFILE`).
enum OpenFileLimit {
    /// Raises the soft limit to the hard limit, as daemons do at start: each control connection
    /// holds a descriptor, and the usual soft limit (1024) is far below the hard one.
    /// - Returns: the soft limit in force afterwards, nil when it cannot be read.
    @discardableResult
    static func raiseToHardLimit() -> UInt64? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return UInt64(limit.rlim_cur)
    }
}
