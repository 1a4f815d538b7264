#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Runs this executable again with `arguments` and returns its exit status and standard output,
/// killing it once `deadline` has passed. (The benchmark links only Storage and what it needs, so
/// that a release build of it stays small: not the test support's process runner.)
func runChild(_ arguments: [String], deadline: Duration) throws -> (status: Int32, output: String, timedOut: Bool) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let killer = DispatchWorkItem { kill(process.processIdentifier, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Int(deadline.components.seconds)), execute: killer)
    // The child prints one short line; reading to the end returns when it exits.
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    killer.cancel()
    let timedOut = process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
    return (process.terminationStatus, String(decoding: data, as: UTF8.self), timedOut)
}
