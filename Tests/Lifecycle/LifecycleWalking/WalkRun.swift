// What the walks of one run share: the wall clock shim, built once, and another kiosk's
// segment in the clear, made once by a real daemon, for the step that copies it in.

public import Foundation
import SurveyTesting

/// The shared parts of a run of walks.
public final class WalkRun: Sendable {
    /// The wall clock shim's library, when a C compiler was there to build it.
    let clock: WalkClock?
    /// Another kiosk's sessions segment in the clear (a preallocated one, as kill -9 leaves it),
    /// holding one open respondent, and that respondent's session id.
    let foreignSegment: [UInt8]
    let foreignSession: String
    let dir: TemporaryDirectory
    /// The folder of the surveyd and mock-survey-server walked.
    let binaries: URL

    /// Builds the shim and makes the foreign segment with a daemon of its own.
    /// - Parameter binaries: the folder of the surveyd and mock-survey-server to walk; this
    ///   build's products by default (another build's, e.g. an older version's, to compare).
    public init(binaries: URL? = nil) async throws {
        let binaries = binaries ?? PackagePaths.productsDirectory
        for name in ["surveyd", "mock-survey-server"] where !FileManager.default.isExecutableFile(atPath: binaries.appendingPathComponent(name).path) {
            throw WalkError("\(binaries.appendingPathComponent(name).path) is missing: run `swift build` first (the walk runs the built daemon and mock server)")
        }
        self.binaries = binaries
        dir = try TemporaryDirectory(prefix: "walkrun")
        clock = WallClockShift.available ? try await WalkClock(in: dir.path) : nil
        let world = try WalkWorld(clock: nil, binaries: binaries, deadline: .seconds(60), ownFileSystem: false)
        let foreign: ([UInt8], String)
        do {
            foreign = try await Self.foreignKiosk(world)
        } catch {
            await world.finish()
            dir.remove()
            throw error
        }
        await world.finish()
        (foreignSegment, foreignSession) = foreign
    }

    /// A respondent who answered two questions on another kiosk, killed: its sessions segment.
    private static func foreignKiosk(_ world: WalkWorld) async throws -> ([UInt8], String) {
        try await world.startMock()
        try await world.startDaemon()
        let started = try await world.control("POST", "/v1/sessions", ["lang": "en"])
        guard started.status == 201, let id = started.json["id"] as? String else { throw WalkError("the foreign kiosk's daemon did not start a session: \(started.status) \(started.json)") }
        for value in ["Another kiosk", "other.kiosk@example.org"] {
            let answered = try await world.control("POST", "/v1/answers", ["session": id, "values": [value]])
            guard answered.status == 200 else { throw WalkError("the foreign kiosk's daemon refused an answer: \(answered.status) \(answered.json)") }
        }
        try await world.stopDaemon(unclean: true)
        let sessions = world.state + "/sessions"
        guard let first = try FileManager.default.contentsOfDirectory(atPath: sessions).filter({ $0.hasPrefix("segment-") && $0.hasSuffix(".log") }).sorted().first else {
            throw WalkError("the foreign kiosk's daemon wrote no sessions segment")
        }
        // Its records, without the preallocated zeros after them (which a journal reads as nothing).
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: sessions + "/" + first)))
        return (Array(bytes[..<(bytes.lastIndex { $0 != 0 }.map { $0 + 1 } ?? 0)]), id)
    }

    public func remove() { dir.remove() }
}

/// The wall clock shim (WallClockShift), built once; each walk has its own offset file.
struct WalkClock: Sendable {
    let library: String

    init(in directory: String) async throws {
        library = try await WallClockShift(in: directory).library
    }

    func environment(for directory: String) -> [String: String] {
        ["LD_PRELOAD": library, "SURVEYD_TEST_WALL_CLOCK_OFFSET_FILE": directory + "/wall-clock-offset"]
    }
}
