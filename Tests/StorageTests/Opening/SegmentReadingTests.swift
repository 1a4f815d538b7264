import Foundation
import Logging
@testable import Storage
import SurveyTesting
import Testing

/// Frames of different lengths (a header, a payload of 0 to 300 bytes), as a segment holds them.
private func frames(_ count: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    for i in 0..<count {
        Frame.encode(type: 1, sequence: UInt64(i + 1), payload: [UInt8](repeating: UInt8(i % 256), count: (i * 37) % 301), into: &bytes)
    }
    return bytes
}

@Suite(.timeLimit(.minutes(5))) struct SegmentReadingTests {
    /// Walked a piece at a time, as a segment is read, the frames come out as walked at once: for
    /// whole segments, a torn last frame, a damaged header in the middle and zeros after the frames.
    @Test(arguments: ["whole", "torn", "damaged header", "zero tail"])
    func aWalkInPiecesFindsWhatAWalkAtOnceFinds(_ shape: String) {
        let original = frames(500)
        let whole = original.withUnsafeBytes { FrameWalk.whole($0, start: 0, maxPayload: 1000, sealed: false) }
        var bytes = original
        switch shape {
        case "torn": bytes.removeLast(40)
        case "damaged header": bytes[Int(whole.offsets[250])] ^= 0xFF
        case "zero tail": bytes += [UInt8](repeating: 0, count: 5000)
        default: break
        }
        var generator = SystemRandomNumberGenerator()
        bytes.withUnsafeBytes { raw in
            let atOnce = FrameWalk.whole(raw, start: 0, maxPayload: 1000, sealed: false)
            switch shape {
            case "torn": #expect(atOnce.offsets.count == 499)
            case "damaged header": #expect(atOnce.offsets.count == 250 && atOnce.end == Int(whole.offsets[250]))
            default: #expect(atOnce.offsets == whole.offsets && atOnce.end == whole.end)
            }
            for pieceSize in [1, 21, 22, 4096, 0] {
                var walk = FrameWalk(start: 0, maxPayload: 1000, sealed: false)
                var available = 0
                while available < raw.count {
                    available = min(raw.count, available + (pieceSize == 0 ? Int.random(in: 1...700, using: &generator) : pieceSize))
                    walk.advance(raw, available: available)
                }
                walk.advance(raw, available: raw.count, final: true)
                #expect(walk.stopped)
                #expect(walk.offsets == atOnce.offsets, "pieces of \(pieceSize)")
                #expect(walk.end == atOnce.end, "pieces of \(pieceSize)")
            }
        }
    }

    /// A header that claims more than the largest payload ends the walk there, as the frame decoder
    /// refuses it; a walk from `start` begins there.
    @Test func aLengthOverTheBoundEndsTheWalk() {
        let bytes = frames(10)
        bytes.withUnsafeBytes { raw in
            let all = FrameWalk.whole(raw, start: 0, maxPayload: 1000, sealed: false)
            let bounded = FrameWalk.whole(raw, start: 0, maxPayload: 100, sealed: false)
            // Payload lengths are 0, 37, 74, 111, …: the fourth frame is over 100 bytes.
            #expect(bounded.offsets == Array(all.offsets.prefix(3)))
            #expect(bounded.end == Int(all.offsets[3]))
            let fromSecond = FrameWalk.whole(raw, start: Int(all.offsets[1]), maxPayload: 1000, sealed: false)
            #expect(fromSecond.offsets == Array(all.offsets.dropFirst()))
        }
    }

    /// One buffer reads files of different sizes in turn: each read gives that file's bytes, and
    /// the progress it reports grows to the whole file, a piece at a time.
    @Test func oneBufferReadsFilesOfDifferentSizesInTurn() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let io = FileIO(JournalFileOperations())
        let buffer = SegmentBuffer()
        let files: [(name: String, size: Int)] = [("a", 5000), ("b", 3 * SegmentBuffer.piece + 17), ("c", 0), ("d", SegmentBuffer.piece)]
        for (index, (name, size)) in files.enumerated() {
            let content: [UInt8] = (0..<size).map { i in UInt8(truncatingIfNeeded: i &* 31 &+ index) }
            try Data(content).write(to: URL(fileURLWithPath: dir.path + "/" + name))
            var seen: [Int] = []
            let bytes = try buffer.read(dir.path + "/" + name, io: io) { seen.append($0.count) }
            #expect(Array(bytes) == content, "file \(name)")
            #expect(seen == stride(from: 0, to: size, by: SegmentBuffer.piece).map { min(size, $0 + SegmentBuffer.piece) }, "file \(name)")
        }
        #expect(throws: SystemCallError.self) { try buffer.read(dir.path + "/missing", io: io) }
    }
}
