#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Looks for words in every file under a directory, as someone who copied the disk would: the
/// words as UTF-8, UTF-16 (both byte orders), hex (both cases) and base64 (at each of the three
/// alignments a word can have inside a longer encoded text).
public enum DiskSearch {
    /// A word found in a file, and how it was written there.
    public struct Finding: Sendable, Hashable, CustomStringConvertible {
        public var file: String
        public var word: String
        public var encoding: String
        public var description: String { "\"\(word)\" (\(encoding)) in \(file)" }
    }

    /// Every (word, encoding) found in the regular files under `directory`, subdirectories
    /// included.
    public static func find(_ words: [String], under directory: String) -> [Finding] {
        let patterns = words.flatMap { word in encodings(of: word).map { (word, $0.name, $0.bytes) } }
        var findings: [Finding] = []
        for file in files(under: directory) {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            let searched = data.prefix(data.withUnsafeBytes(dataEnd))
            for (word, name, bytes) in patterns where searched.range(of: Data(bytes)) != nil {
                findings.append(Finding(file: file, word: word, encoding: name))
            }
        }
        return findings
    }

    /// Where a file's bytes stop mattering: a few bytes past its last non-zero byte (a pattern
    /// such as UTF-16LE text can end in a zero). A journal segment is preallocated, so most of an
    /// active one is a zero tail that holds nothing and would cost the search most of its time.
    static func dataEnd(_ raw: UnsafeRawBufferPointer) -> Int {
        guard let base = raw.baseAddress else { return 0 }
        let block = 4096
        let zeros = [UInt8](repeating: 0, count: block)
        var end = raw.count
        while end >= block, memcmp(base + end - block, zeros, block) == 0 { end -= block }
        while end > 0, raw[end - 1] == 0 { end -= 1 }
        return min(raw.count, end + 8)
    }

    /// The first file under `directory` that holds `word` in any of those encodings, or nil.
    public static func firstFile(under directory: String, holding word: String) -> String? {
        find([word], under: directory).first?.file
    }

    /// The byte patterns `word` leaves when written in each encoding.
    public static func encodings(of word: String) -> [(name: String, bytes: [UInt8])] {
        let utf8 = Array(word.utf8)
        let hex = utf8.map { String(format: "%02x", $0) }.joined()
        var result: [(String, [UInt8])] = [
            ("UTF-8", utf8),
            ("UTF-16LE", word.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }),
            ("UTF-16BE", word.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }),
            ("hex", Array(hex.utf8)),
            ("HEX", Array(hex.uppercased().utf8)),
        ]
        // Inside a longer text the word starts at any of three offsets in a base64 group: the
        // characters that depend only on the word's bytes are those of its whole groups.
        for offset in 0..<3 {
            let encoded = Array((Data(repeating: 0, count: offset) + Data(utf8)).base64EncodedString().utf8)
            let core = encoded.dropFirst(offset == 0 ? 0 : 4).dropLast(4)
            if core.count >= 8 { result.append(("base64+\(offset)", Array(core))) }
        }
        return result
    }

    /// The regular files under `directory`, subdirectories included.
    public static func files(under directory: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
        var files: [String] = []
        while let relative = enumerator.nextObject() as? String {
            let path = directory + "/" + relative
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue { files.append(path) }
        }
        return files
    }
}
