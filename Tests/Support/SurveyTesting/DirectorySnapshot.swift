#if canImport(Glibc)
import Glibc
#endif
public import Foundation

/// Every file under a directory with its bytes and mode, to tell whether anything there changed
/// (a refused start must leave the state directory byte for byte as it was).
public enum DirectorySnapshot {
    /// Each path under `dir` (relative), mapped to its bytes (a regular file's; nothing for
    /// others), a 0 byte and its mode in octal. `Data`, whose comparison is a `memcmp`: a journal
    /// segment is preallocated to 64 MiB, too much to compare byte by byte in a debug build.
    public static func take(_ dir: String) throws -> [String: Data] {
        var result: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: dir)
        while let name = enumerator?.nextObject() as? String {
            let path = dir + "/" + name
            var st = stat()
            guard lstat(path, &st) == 0 else { continue }
            var content = st.st_mode & S_IFMT == S_IFREG ? try Data(contentsOf: URL(fileURLWithPath: path)) : Data()
            content.append(0)
            content.append(contentsOf: Array(String(st.st_mode, radix: 8).utf8))
            result[name] = content
        }
        return result
    }
}
