import ArgumentParser
import BenchmarkSupport
import Foundation
import Logging
import ProcessTesting
import Storage

/// The memory of replaying a large sessions journal (the daemon's events, as an `EventJournal`):
/// the process's RSS when empty, with the journal open and its records recovered (what an owner
/// that keeps them holds for its lifetime), and after the events were replayed and let go.
enum SessionReplay {
    struct Measure {
        var records = 0
        var emptyMB = 0.0
        var openMB = 0.0
        var replayedMB = 0.0
    }

    /// One event of about the size of an answer, as the daemon journals it.
    static func event(_ i: Int) -> [UInt8] {
        Array(#"[{"answerAccepted":{"session":"6f1c2d6e-8d2a-4a55-9a7e-\#(String(format: "%012d", i))","question":"email","value":"respondent\#(i)@example.org","at":1800000000}}]"#.utf8)
    }

    /// Appends `count` events to a sessions journal in `directory` (relaxed durability, 512 at a time).
    static func fill(directory: String, count: Int, keys: JournalKeys?) async throws {
        var options = JournalOptions()
        options.durability = .relaxed(syncInterval: .seconds(1))
        options.encryption = keys
        var logger = Logger(label: "storage-bench-sessions")
        logger.logLevel = .error
        let journal = try Journal(directory: directory, options: options, logger: logger)
        defer { journal.close(then: {}) }  // when it throws
        let events = EventJournal<[String: String]>(journal: journal)
        var done = 0
        while done < count {
            let batch = min(512, count - done)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in done ..< done + batch { group.addTask { _ = try await events.append(encoded: event(i)) } }
                try await group.waitForAll()
            }
            done += batch
        }
        await journal.close()
    }

    /// Child mode: opens the journal, measures, replays and lets the events go, measures again.
    static func measureInThisProcess(directory: String, keys: JournalKeys?) async throws {
        var options = JournalOptions()
        options.encryption = keys
        var logger = Logger(label: "storage-bench-replay")
        logger.logLevel = .error
        let emptyMB = BenchmarkSupport.memoryMegabytes()
        let journal = try Journal(directory: directory, options: options, logger: logger)
        defer { journal.close(then: {}) }  // when it throws
        let records = journal.recovered.count
        let openMB = BenchmarkSupport.memoryMegabytes()
        // What the daemon does: replay, keep nothing of it here (the daemon keeps its open sessions).
        let replayed = try EventJournal<[SessionEventStub]>(journal: journal).replay().count
        guard replayed == records else { throw BenchmarkError("replayed \(replayed) of \(records) records") }
        // As the daemon does once its sessions are restored.
        Journal.releaseFreedMemory()
        let replayedMB = BenchmarkSupport.memoryMegabytes()
        print("records=\(records) emptyMB=\(emptyMB) openMB=\(openMB) replayedMB=\(replayedMB)")
        await journal.close()
    }

    /// Runs `StorageBenchmark replay DIR` and reads its line.
    static func measureInChild(directory: String, executable: URL) async throws -> Measure {
        let result = try await runProcess(executable, ["replay", directory], deadline: .seconds(600))
        FileHandle.standardError.write(Data(result.stderr.utf8))
        guard result.status == 0, !result.timedOut else { throw BenchmarkError("the replay measurement exited \(result.status); its errors are above") }
        var fields: [String: Double] = [:]
        for pair in result.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = pair.split(separator: "=")
            if parts.count == 2, let value = Double(parts[1]) { fields[String(parts[0])] = value }
        }
        guard let records = fields["records"], let empty = fields["emptyMB"], let open = fields["openMB"], let replayed = fields["replayedMB"] else {
            throw BenchmarkError("the replay measurement printed \(result.stdout)")
        }
        return Measure(records: Int(records), emptyMB: empty, openMB: open, replayedMB: replayed)
    }

    /// An event as the benchmark decodes it: any JSON object.
    struct SessionEventStub: Codable, Sendable {
        init(from decoder: any Decoder) throws {}
        func encode(to encoder: any Encoder) throws {}
    }
}

extension StorageBenchmark {
    struct FillSessions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "fill-sessions", abstract: "Fills DIR with a sessions journal of COUNT answer events, kept, to replay it again and again.")
        @Argument(help: "The journal's directory.") var dir: String
        @Argument(help: "How many events.") var count: Int

        func run() async throws {
            try await SessionReplay.fill(directory: dir, count: count, keys: nil)
            print("filled \(dir) with \(count) events")
        }
    }

    struct Replay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Opens the sessions journal in DIR, replays it and prints this process's memory before and after (the child process the measurement starts).")
        @Argument(help: "The sessions journal's directory.") var dir: String

        func run() async throws {
            try await SessionReplay.measureInThisProcess(directory: dir, keys: nil)
        }
    }
}
