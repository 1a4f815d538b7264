import Foundation

/// Writes `text` (and a newline) to standard error at once, for what a test reports beside its
/// verdict (counts, a child's output). Not `print`: standard output is a pipe under `swift test`,
/// and what `print` writes there waits in a buffer until the process exits (or is lost when it is
/// killed), so a run would not show its progress as it goes.
public func report(_ text: String) {
    FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
}
