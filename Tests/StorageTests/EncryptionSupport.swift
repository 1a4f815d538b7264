#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Storage
import SurveyTesting

/// Keys, file snapshots and byte surgery for the encryption tests.
enum Encryption {
    static func key(_ fill: UInt8) -> JournalKey {
        // 32 bytes always make a key.
        try! JournalKey(bytes: (0..<32).map { UInt8(truncatingIfNeeded: Int($0) &* 7 &+ Int(fill)) })
    }

    static func keys(_ current: UInt8, old: [UInt8] = []) -> JournalKeys {
        JournalKeys(current: key(current), old: old.map(key))
    }

    static func segmentNames(_ dir: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("segment-") && $0.hasSuffix(".log") }.sorted()
    }

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    static func write(_ bytes: [UInt8], to path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

    /// The offsets of the frames of an encrypted segment, with their stored lengths.
    static func frames(_ segment: [UInt8]) -> [(offset: Int, length: Int)] {
        var frames: [(Int, Int)] = []
        var offset = 48
        while offset + 21 <= segment.count {
            let length = Int(segment[offset + 4]) | Int(segment[offset + 5]) << 8 | Int(segment[offset + 6]) << 16 | Int(segment[offset + 7]) << 24
            frames.append((offset, length))
            offset += 21 + length
        }
        return frames
    }

    /// Sets the CRC of the frame at `offset` to match what it now holds.
    static func fixCRC(_ segment: inout [UInt8], frame offset: Int, length: Int) {
        let crc = CRC32C.checksum(Array(segment[(offset + 12)..<(offset + 21 + length)]))
        withUnsafeBytes(of: crc.littleEndian) { segment.replaceSubrange((offset + 8)..<(offset + 12), with: $0) }
    }

    /// Whether any file under `dir` holds `word`: as is, in hex, in base64 or in UTF-16.
    static func anyFile(under dir: String, holds word: String) throws -> String? {
        DiskSearch.firstFile(under: dir, holding: word)
    }
}
