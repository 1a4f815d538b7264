#if canImport(Glibc)
import Glibc
#endif
public import Foundation

/// A wall clock that a test steps in a child process, and nothing else: the `LD_PRELOAD` library
/// of `Tests/Support/WallClockShift/wall_clock_shift.c`, compiled at run time with the system's C
/// compiler into the test's directory, offsets `clock_gettime(CLOCK_REALTIME)` (and its coarse
/// form), `gettimeofday` and `time` by the seconds in ``offsetFile``. The monotonic and boot-time
/// clocks, and every sleep, keep the real time. A process started with ``environment`` sees the
/// wall clock move when ``set(offset:)`` writes a new offset (the library looks at the file on
/// every call).
///
/// The kernel does not know: a `timerfd` armed with `TFD_TIMER_CANCEL_ON_SET` is not cancelled by
/// such a step.
public struct WallClockShift: Sendable {
    /// The compiled library.
    public let library: String
    /// The file holding the offset, in seconds.
    public let offsetFile: String

    /// A C compiler on `PATH` (`cc`, `gcc` or `clang`); nil when there is none.
    public static let compiler: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for name in ["cc", "gcc", "clang"] {
            for directory in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
                return URL(fileURLWithPath: "\(directory)/\(name)")
            }
        }
        return nil
    }()

    /// Whether the library can be built here (a C compiler, Linux).
    public static var available: Bool {
        #if os(Linux)
        return compiler != nil
        #else
        return false
        #endif
    }

    /// Compiles the library into `directory` and writes an offset of `offset` seconds.
    public init(in directory: String, offset: Double = 0) async throws {
        guard let compiler = Self.compiler else { throw ShiftError("no C compiler (cc, gcc or clang) on PATH to build the wall clock shim") }
        let source = PackagePaths.root.appendingPathComponent("Tests/Support/WallClockShift/wall_clock_shift.c").path
        library = directory + "/libwallclockshift.so"
        offsetFile = directory + "/wall-clock-offset"
        let built = try await runProcess(compiler, ["-shared", "-fPIC", "-O2", "-o", library, source, "-ldl"], deadline: .seconds(60))
        guard built.status == 0 else { throw ShiftError("building \(source) failed (\(built.status)): \(built.stderr)") }
        try set(offset: offset)
    }

    /// The environment that gives a child process the shifted wall clock.
    public var environment: [String: String] {
        ["LD_PRELOAD": library, "SURVEYD_TEST_WALL_CLOCK_OFFSET_FILE": offsetFile]
    }

    /// Steps the wall clock of the processes started with ``environment`` to the real time plus
    /// `offset` seconds: a new file renamed over the old one, so a reader never sees half of it.
    public func set(offset: Double) throws {
        let next = offsetFile + ".next"
        try Data(String(format: "%.3f\n", offset).utf8).write(to: URL(fileURLWithPath: next))
        guard rename(next, offsetFile) == 0 else { throw ShiftError("cannot rename \(next) to \(offsetFile): errno \(errno)") }
    }

    public struct ShiftError: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }
}
