#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
public import Musl
#endif

/// The staff PIN file: read by the daemon at start and on SIGHUP, written by `surveyctl staff-pin set`.
extension StaffPinHash {
    /// Reads the hash from `path`, refusing a file that is missing, not a regular file, open to
    /// group or others, or not a staff PIN line. The error names the file and what to do.
    public static func load(from path: String) throws(StaffPinError) -> StaffPinHash {
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw StaffPinError("the staff PIN file \(path) cannot be read (\(String(cString: strerror(errno)))); write it with `surveyctl staff-pin set --file \(path)` or give the right path")
        }
        guard st.st_mode & S_IFMT == S_IFREG else {
            throw StaffPinError("the staff PIN file \(path) is not a regular file; give the file `surveyctl staff-pin set` wrote")
        }
        guard st.st_mode & 0o077 == 0 else {
            throw StaffPinError("the staff PIN file \(path) is open to group or others (mode \(String(st.st_mode & 0o777, radix: 8))); make it owner-only: chmod 600 \(path)")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw StaffPinError("the staff PIN file \(path) cannot be opened (\(String(cString: strerror(errno)))); give the daemon's user read access to it, owner-only")
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while bytes.count <= 4096 {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        do {
            return try StaffPinHash(line: String(decoding: bytes.prefix(4096), as: UTF8.self))
        } catch {
            throw StaffPinError("the staff PIN file \(path): \(error.message)")
        }
    }

    /// Writes the hash to `path`, mode 0600, replacing the file whole (a new file renamed over
    /// it after an fsync); `owner` (a user id) gets the file when given.
    public func write(to path: String, owner: (uid: uid_t, gid: gid_t)? = nil) throws(StaffPinError) {
        let temporary = path + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw StaffPinError("\(temporary) cannot be created (\(String(cString: strerror(errno)))); give a path in a directory you can write")
        }
        func fail(_ call: String) -> StaffPinError {
            let text = String(cString: strerror(errno))
            close(fd)
            unlink(temporary)
            return StaffPinError("writing the staff PIN file \(path) failed (\(call): \(text))")
        }
        guard fchmod(fd, 0o600) == 0 else { throw fail("fchmod") }
        if let owner, fchown(fd, owner.uid, owner.gid) != 0 { throw fail("fchown") }
        let bytes = Array(line.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw fail("write") }
        guard fsync(fd) == 0 else { throw fail("fsync") }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let text = String(cString: strerror(errno))
            unlink(temporary)
            throw StaffPinError("the staff PIN file \(path) cannot be replaced (rename: \(text))")
        }
    }
}
