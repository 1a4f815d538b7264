#if canImport(Glibc)
import Glibc
#endif

/// Output that holds respondents' answers in the clear (`surveyctl queue export`): when it goes to
/// a regular file, that file is made owner-only (0600) before anything is written to it.
public enum OwnerOnlyOutput {
    /// Sets the regular file open on `fd` to 0600 when group or others have any access to it;
    /// leaves a pipe or a terminal alone. Returns what is wrong when the mode cannot be set (a
    /// file owned by another user), nil otherwise.
    public static func restrict(_ fd: Int32) -> String? {
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_mode & 0o077 != 0 else { return nil }
        guard fchmod(fd, 0o600) != 0 else { return nil }
        return "the output file cannot be made owner-only (mode 0600): \(String(cString: strerror(errno))); it would hold answers in the clear. Write to a file of your own."
    }
}
