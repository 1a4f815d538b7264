#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Looks for a respondent's words in the files of a directory, in the forms they could take
/// there: as UTF-8, in hex, in base64 (any alignment) and in UTF-16 of either byte order.
public enum FileSearch {
    /// The first regular file under `directory` (recursively) that holds `word` in any of those
    /// forms, or nil.
    public static func firstFile(under directory: String, holding word: String) throws -> String? {
        let forms = self.forms(of: word)
        let enumerator = FileManager.default.enumerator(atPath: directory)
        while let name = enumerator?.nextObject() as? String {
            let path = directory + "/" + name
            var st = stat()
            guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { continue }
            let content = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            for form in forms where contains(content, form) { return path }
        }
        return nil
    }

    /// The byte strings `word` shows as.
    public static func forms(of word: String) -> [[UInt8]] {
        var forms: [[UInt8]] = [
            Array(word.utf8),
            Array(word.utf8.map { String(format: "%02x", $0) }.joined().utf8),
            Array(word.utf8.map { String(format: "%02X", $0) }.joined().utf8),
            word.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] },
            word.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] },
        ]
        // In base64 the word shows in one of three alignments; the groups at its edges vary.
        for shift in 0..<3 {
            let text = Data([UInt8](repeating: 0, count: shift) + Array(word.utf8)).base64EncodedString()
            let middle = text.dropFirst(shift == 0 ? 0 : 4).dropLast(4)
            if middle.count >= 8 { forms.append(Array(middle.utf8)) }
        }
        return forms
    }

    static func contains(_ content: [UInt8], _ form: [UInt8]) -> Bool {
        guard let first = form.first, content.count >= form.count else { return false }
        var index = 0
        let last = content.count - form.count
        while index <= last {
            if content[index] == first && content[index..<(index + form.count)].elementsEqual(form) { return true }
            index += 1
        }
        return false
    }
}
