#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Every file under a directory with its bytes and mode, to tell whether anything there changed
/// (a refused start must leave the state directory byte for byte as it was).
public enum DirectorySnapshot {
    /// Each path under `dir` (relative), mapped to its bytes (a regular file's; nothing for
    /// others), a 0 byte and its mode in octal.
    public static func take(_ dir: String) throws -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        let enumerator = FileManager.default.enumerator(atPath: dir)
        while let name = enumerator?.nextObject() as? String {
            let path = dir + "/" + name
            var st = stat()
            guard lstat(path, &st) == 0 else { continue }
            let content = st.st_mode & S_IFMT == S_IFREG ? [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) : []
            result[name] = content + [0] + Array(String(st.st_mode, radix: 8).utf8)
        }
        return result
    }
}
