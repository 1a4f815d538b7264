#if canImport(Glibc)
import Glibc
#endif

/// The device and inode of an open file descriptor (`fstat`), as `JOURNAL_STREAM` names a stream:
/// nil when `fstat` fails. Here rather than in each test file, so that which C module a test file
/// sees `struct stat` through does not matter.
public func fileIdentity(of descriptor: Int32) -> (device: UInt64, inode: UInt64)? {
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { return nil }
    return (UInt64(info.st_dev), UInt64(info.st_ino))
}
