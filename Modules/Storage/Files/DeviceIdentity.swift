// This kiosk's id for the survey server: made once at random, kept in the state directory.

#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The device id a kiosk sends with its uploads (`Survey-Device-Id`), stable across restarts.
public enum DeviceIdentity {
    /// The file under the state directory that keeps it.
    public static let fileName = "device-id"

    /// Whether `text` may be a device id: 1 to 64 ASCII letters, digits, `-`, `_` or `.`.
    public static func isValid(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E }
    }

    /// The id kept in `directory`, made (a random UUID, lower case) and written first when there
    /// is none yet: to a temporary file (0600, fsync'd), renamed into place, with the directory
    /// fsync'd, so that a crash leaves either no id or the whole one. Throws `StorageError`
    /// `.ioFailed` when it cannot be read or written, `.undecodableRecord` when the file holds
    /// something else than an id.
    public static func loadOrCreate(in directory: String, operations: JournalFileOperations = JournalFileOperations()) throws -> String {
        let io = FileIO(operations)
        let path = directory + "/" + fileName
        if io.lstat(path) != nil {
            let bytes: [UInt8]
            do {
                bytes = try io.readAll(path, mode: 0o600)
            } catch {
                throw StorageError(code: .ioFailed, message: "cannot read the device id in \(path): \(error); make it readable by surveyd or remove it to get a new id", cause: error as? SystemCallError)
            }
            let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard isValid(text) else {
                throw StorageError(code: .undecodableRecord, message: "\(path) does not hold a device id (1 to 64 letters, digits, -, _ or .); fix it, or remove it to get a new id")
            }
            return text
        }
        let id = UUID().uuidString.lowercased()
        do {
            try io.replaceFile(Array((id + "\n").utf8), at: path, temporary: path + ".tmp", directory: directory)
        } catch {
            throw StorageError(code: .ioFailed, message: "cannot write the device id to \(path): \(error); make the state directory writable by surveyd", cause: error as? SystemCallError)
        }
        return id
    }
}
