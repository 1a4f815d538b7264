#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the kiosk's staff and operator set that outlives a restart, kept in
/// `STATE/kiosk-staff.json`: out of service (with its message), the survey chosen among
/// `kioskSurveys`, and the staff PIN's lockout. No respondent data.
struct KioskStaffRecord: Codable, Sendable, Hashable {
    struct OutOfService: Codable, Sendable, Hashable {
        var message: String?
        var since: Date
    }

    var outOfService: OutOfService?
    /// The first stage chosen on the staff screen; nil: the first of `kioskSurveys`, or `firstStage`.
    var survey: String?
    var lockout: StaffLockout.Record?

    static let fileName = "kiosk-staff.json"

    /// The record in `directory`; an empty one when there is none yet. A file that cannot be
    /// read is reported through `problem` and replaced by the next change.
    static func load(directory: String, problem: (String) -> Void) -> KioskStaffRecord {
        let path = directory + "/" + fileName
        guard let data = FileManager.default.contents(atPath: path) else { return KioskStaffRecord() }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(KioskStaffRecord.self, from: data)
        } catch {
            problem("\(path) cannot be read (\(error)); the kiosk starts in service with its default survey and no PIN lockout")
            return KioskStaffRecord()
        }
    }

    /// Writes the record to `directory` durably: a new file, fsync'd, renamed over the old one,
    /// then the directory fsync'd. Blocking: call it off any event loop.
    func write(directory: String) throws(KioskStaffRecordError) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        let bytes: [UInt8]
        do {
            bytes = Array(try encoder.encode(self))
        } catch {
            throw KioskStaffRecordError(message: "the kiosk's staff settings cannot be encoded: \(error)")
        }
        try Self.replace(directory + "/" + Self.fileName, with: bytes, directory: directory)
    }

    static func replace(_ path: String, with bytes: [UInt8], directory: String) throws(KioskStaffRecordError) {
        let temporary = path + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw KioskStaffRecordError.failed("open", path) }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(fd) == 0 else {
            let error = KioskStaffRecordError.failed("write", path)
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else { throw KioskStaffRecordError.failed("rename", path) }
        let dir = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 {
            _ = fsync(dir)
            close(dir)
        }
    }
}

/// The staff record could not be written.
struct KioskStaffRecordError: Error, Sendable, CustomStringConvertible {
    var message: String
    var description: String { message }

    static func failed(_ call: String, _ path: String) -> KioskStaffRecordError {
        KioskStaffRecordError(message: "\(path) cannot be written (\(call): \(String(cString: strerror(errno)))); free space in the state directory or check the disk")
    }
}
