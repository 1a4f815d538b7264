import Dispatch
import Foundation
import Logging
import Networking
import Synchronization
import SurveyTesting
import Testing
@testable import SurveyDaemon

/// Log lines go to stderr through a bounded buffer and a thread of their own: in order, dropped
/// and counted (never waited for) when the sink does not take them, flushed before an exit.
@Suite(.timeLimit(.minutes(5))) struct LogLineWriterTests {
    /// A sink that records lines, and that can be held shut: until `open()`, the line it is
    /// given blocks the writer's thread inside it, as a `write(2)` to a full pipe would.
    final class Sink: Sendable {
        let lines = Mutex<[String]>([])
        let gate = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let held: Bool

        init(held: Bool = false) { self.held = held }

        var all: [String] { lines.withLock { $0 } }

        func write(_ line: String) {
            if held {
                entered.signal()
                gate.wait()
                gate.signal()  // once open, it stays open
            }
            lines.withLock { $0.append(line) }
        }

        func open() { gate.signal() }
    }

    @Test func linesArriveInOrder() {
        let sink = Sink()
        let writer = LogLineWriter(capacity: 10_000, sink: sink.write)
        defer { #expect(writer.stop(timeout: .seconds(60))) }
        let expected = (0..<2_000).map { "line \($0)\n" }
        for line in expected { #expect(writer.enqueue(line)) }
        #expect(writer.flush(timeout: .seconds(60)))
        #expect(sink.all == expected)
        #expect(writer.droppedLines == 0)
    }

    @Test func theHandlerKeepsItsFormatThroughTheWriter() {
        let sink = Sink()
        let writer = LogLineWriter(sink: sink.write)
        defer { #expect(writer.stop(timeout: .seconds(60))) }
        let log = Logger(label: "surveyd") { label in
            DaemonLogHandler(label: label, journal: true, level: DaemonLogLevel(.debug), metadataProvider: nil, write: { writer.enqueue($0) })
        }
        log.warning("careful", metadata: ["k": "v"])
        log.info("hello")
        #expect(writer.flush(timeout: .seconds(60)))
        #expect(sink.all.count == 2)
        #expect(sink.all.first?.hasPrefix("<4>") == true && sink.all.first?.contains("warning surveyd: k=v [SurveyDaemonTests] careful\n") == true, "\(sink.all)")
        #expect(sink.all.last?.hasPrefix("<6>") == true && sink.all.last?.hasSuffix("info surveyd: [SurveyDaemonTests] hello\n") == true, "\(sink.all)")
    }

    @Test func aSinkThatTakesNothingMakesTheWriterDropAndCountNotWait() throws {
        let sink = Sink(held: true)
        let writer = LogLineWriter(capacity: 4, sink: sink.write)
        defer {
            sink.open()
            #expect(writer.stop(timeout: .seconds(60)))
        }
        #expect(writer.enqueue("0\n"))
        // The writer's thread is inside the sink with line 0, and stays there.
        try #require(sink.entered.wait(timeout: .now() + 60) == .success)
        for line in 1...4 { #expect(writer.enqueue("\(line)\n")) }
        // The buffer is full: these return at once, dropped and counted.
        for line in 5...7 { #expect(!writer.enqueue("\(line)\n")) }
        #expect(writer.droppedLines == 3)
        // A flush does not outwait a sink that takes nothing.
        #expect(!writer.flush(timeout: .milliseconds(1)))
        // Once the sink takes lines again: the ones kept, then a line saying how many were dropped.
        sink.open()
        #expect(writer.flush(timeout: .seconds(60)))
        #expect(sink.all == ["0\n", "1\n", "2\n", "3\n", "4\n", "3 log lines dropped: stderr was not accepting them\n"])
        #expect(writer.enqueue("8\n"))
        #expect(writer.flush(timeout: .seconds(60)))
        #expect(sink.all.last == "8\n")
        #expect(writer.droppedLines == 3)
    }

    @Test func flushDeliversEverythingPending() throws {
        let sink = Sink(held: true)
        let writer = LogLineWriter(capacity: 1_000, sink: sink.write)
        defer { #expect(writer.stop(timeout: .seconds(60))) }
        let expected = (0..<500).map { "line \($0)\n" }
        for line in expected { #expect(writer.enqueue(line)) }
        try #require(sink.entered.wait(timeout: .now() + 60) == .success)
        #expect(sink.all.isEmpty)
        // The sink opens while the flush waits; the flush returns once every line is written.
        DispatchQueue.global().async { sink.open() }
        #expect(writer.flush(timeout: .seconds(60)))
        #expect(sink.all == expected)
    }

    @Test func stopWritesWhatIsPendingAndEndsTheThread() throws {
        let sink = Sink(held: true)
        let writer = LogLineWriter(capacity: 100, sink: sink.write)
        #expect(!writer.isRunning, "no thread before the first line")
        for line in 0..<3 { #expect(writer.enqueue("\(line)\n")) }
        try #require(sink.entered.wait(timeout: .now() + 60) == .success)
        #expect(writer.isRunning)
        // Held inside the sink, the thread cannot end: the stop says so when its time is up.
        #expect(!writer.stop(timeout: .milliseconds(1)))
        sink.open()
        #expect(writer.stop(timeout: .seconds(60)))
        #expect(!writer.isRunning)
        #expect(sink.all == ["0\n", "1\n", "2\n"])
        // After the stop a line is dropped and counted; nothing waits for a thread that is gone.
        #expect(!writer.enqueue("late\n"))
        #expect(writer.droppedLines == 1)
        #expect(writer.flush(timeout: .seconds(60)))
        #expect(writer.stop(timeout: .seconds(60)))
    }

    @Test func aWriterThatNeverWroteStopsAtOnce() {
        let writer = LogLineWriter(sink: { _ in })
        #expect(writer.stop(timeout: .zero))
    }

    @Test func theDropNoticeIsAWarningInTheHandlersFormat() {
        let journal = DaemonLogHandler.noticeLine(droppedLines: 12, journal: true)
        #expect(journal.hasPrefix("<4>") && journal.hasSuffix("warning surveyd: [SurveyDaemon] 12 log lines dropped: stderr was not accepting them\n"), "\(journal)")
        let plain = DaemonLogHandler.noticeLine(droppedLines: 1, journal: false)
        #expect(!plain.hasPrefix("<") && plain.contains("1 log lines dropped"), "\(plain)")
    }

    @Test func theDroppedLinesAreCountedInTheMetrics() throws {
        let sink = Sink(held: true)
        let writer = LogLineWriter(capacity: 1, sink: sink.write)
        defer {
            sink.open()
            #expect(writer.stop(timeout: .seconds(60)))
        }
        let exporter = MetricsExporter(logWriter: writer)
        let snapshot = MetricsExporter.Snapshot(counts: nil, now: Date(), connectivity: .unknown, journals: [], ready: true)
        func scrape() throws -> Double? {
            try PrometheusText.parse(String(decoding: exporter.exposition(snapshot), as: UTF8.self))[DaemonMetrics.Name.logLinesDropped]
        }
        #expect(try scrape() == 0)
        #expect(writer.enqueue("0\n"))
        try #require(sink.entered.wait(timeout: .now() + 60) == .success)
        #expect(writer.enqueue("1\n"))
        for _ in 0..<5 { writer.enqueue("dropped\n") }
        #expect(try scrape() == 5)
        #expect(try scrape() == 5)
        writer.enqueue("dropped\n")
        #expect(try scrape() == 6)
    }
}
