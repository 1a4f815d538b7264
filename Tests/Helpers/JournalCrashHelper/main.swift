// Crash-test helper: appends records from several concurrent writers to the journal in argv[1],
// printing "<sequence> <payload hex>" only after each append returned, one unbuffered write per line.
// Even-numbered writers wait for the fdatasync; odd ones append `.deferredMarker` records (acknowledged once
// written), which a kill of the process must not lose either.
// The test kills it with SIGKILL at a random moment and checks every printed record was recovered.
// With argv[3], a key file, the journal is encrypted under that key.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Storage

let directory = CommandLine.arguments[1]
let writers = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 4 : 4
var options = JournalOptions()
options.segmentSize = 16 << 10
if CommandLine.arguments.count > 3 {
    options.encryption = JournalKeys(current: try JournalKey.load(from: CommandLine.arguments[3]))
}
// Ends with the test that started it: when that process is gone (it crashed, and so never kills
// this one), the helper is adopted by another parent, and stops within half a second.
let parent = getppid()
Thread.detachNewThread {
    while getppid() == parent { usleep(500_000) }
    exit(4)
}
let journal = try Journal(directory: directory, options: options, logger: Logger(label: "crash-helper"))
let start = journal.recovered.count
await withTaskGroup(of: Void.self) { group in
    for w in 0..<writers {
        group.addTask {
            var i = 0
            while true {
                let payload = Array("w\(w)-\(start)-\(i)-".utf8) + (0..<((i * 7 + w) % 200)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ w) }
                guard let seq = try? await journal.append(type: UInt8(w), payload: payload, kind: w % 2 == 1 ? .deferredMarker : .record) else { exit(3) }
                let line = "\(seq) \(payload.map { String(format: "%02x", $0) }.joined())\n"
                // One write(2) per line, unbuffered: a pipe write under PIPE_BUF bytes is atomic.
                _ = Array(line.utf8).withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
                i += 1
            }
        }
    }
}
