#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#if canImport(CDispatch)
public import CDispatch  // glibc's `stat` and `STDERR_FILENO` (a default argument): on Linux the compiler finds them through it
#endif
public import Logging
import Synchronization

/// The daemon's log level, shared by every logger the ``DaemonLogHandler`` makes, so that a
/// reload of the configuration (SIGHUP) changes it at once.
public final class DaemonLogLevel: Sendable {
    private let raw: Atomic<Int>

    public init(_ level: Logger.Level = .info) {
        raw = Atomic(Self.levels.firstIndex(of: level) ?? 2)
    }

    public var level: Logger.Level {
        get { Self.levels[raw.load(ordering: .relaxed)] }
        set { raw.store(Self.levels.firstIndex(of: newValue) ?? 2, ordering: .relaxed) }
    }

    static let levels = Logger.Level.allCases

    /// The level of the process's loggers (`surveyd` bootstraps them with it).
    public static let shared = DaemonLogLevel()
}

/// surveyd's log lines on stderr: swift-log's `StreamLogHandler` format, at the shared
/// ``DaemonLogLevel``. When stderr is the systemd journal, each line starts with its syslog
/// priority (`<3>` error, `<4>` warning, `<6>` info, `<7>` debug, as `sd-daemon(3)` describes),
/// which the journal strips and records, so that `journalctl -p warning` selects by level.
///
/// The handler formats the line on the caller's thread and hands it to `write`, by default the
/// process's ``LogLineWriter/standardError``, which writes it on a thread of its own: a stderr
/// that does not take lines (a stalled journal, a full pipe) never stalls the thread that logs.
public struct DaemonLogHandler: LogHandler {
    public let label: String
    /// Whether lines carry the syslog priority prefix.
    public let journal: Bool
    let level: DaemonLogLevel
    let write: @Sendable (String) -> Void
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    /// A level set on one logger, which then no longer follows the shared one.
    var localLevel: Logger.Level?

    public init(label: String, journal: Bool, level: DaemonLogLevel = .shared, metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider, write: @escaping @Sendable (String) -> Void = DaemonLogHandler.enqueueToStandardError) {
        self.label = label
        self.journal = journal
        self.level = level
        self.metadataProvider = metadataProvider
        self.write = write
    }

    public var logLevel: Logger.Level {
        get { localLevel ?? level.level }
        set { localLevel = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        // The stream handler formats the line (with the time, level, label, metadata, source);
        // the stream adds the prefix and writes it with one call.
        var formatter = StreamLogHandler(label: label, stream: LineStream(prefix: journal ? Self.priority(of: event.level) : "", output: write), metadataProvider: metadataProvider)
        formatter.logLevel = .trace
        formatter.metadata = self.metadata
        formatter.log(event: event)
    }

    /// The syslog priority prefix of a level (`<7>` for trace and debug … `<2>` for critical).
    public static func priority(of level: Logger.Level) -> String {
        switch level {
        case .trace, .debug: "<7>"
        case .info: "<6>"
        case .notice: "<5>"
        case .warning: "<4>"
        case .error: "<3>"
        case .critical: "<2>"
        }
    }

    /// Whether the process's stderr is the stream `$JOURNAL_STREAM` names (`device:inode`, as
    /// systemd sets it for a service whose output goes to the journal). A stderr redirected
    /// elsewhere (a file, a pipe to another program) keeps the variable but not the stream.
    public static func standardErrorIsJournal(environment: [String: String], descriptor: Int32 = STDERR_FILENO) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    /// Hands the line to the process's writer to stderr, which never blocks the caller.
    public static let enqueueToStandardError: @Sendable (String) -> Void = { line in
        LogLineWriter.standardError.enqueue(line)
    }

    /// The warning that `count` lines were dropped, formatted as the `surveyd` logger's lines are.
    public static func noticeLine(droppedLines count: Int, journal: Bool) -> String {
        let line = LineBox()
        let logger = Logger(label: "surveyd") { label in
            DaemonLogHandler(label: label, journal: journal, level: DaemonLogLevel(.trace), metadataProvider: nil) { text in line.text.withLock { $0 = text } }
        }
        logger.warning("\(LogLineWriter.noticeText(count))")
        return line.text.withLock { $0 }
    }

    /// Writes the whole line with as few `write(2)` calls as it takes (one for any log line
    /// shorter than a pipe's buffer), so that lines of concurrent loggers do not interleave. It
    /// blocks while stderr does not take the line: only a ``LogLineWriter``'s thread calls it.
    public static let writeToStandardError: @Sendable (String) -> Void = { text in
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}

/// The stream the formatter writes one line to.
private struct LineStream: TextOutputStream, Sendable {
    let prefix: String
    let output: @Sendable (String) -> Void

    mutating func write(_ string: String) {
        output(prefix + string)
    }
}

/// The one line a logger made, kept.
private final class LineBox: Sendable {
    let text = Mutex("")
}
