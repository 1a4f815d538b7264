import ArgumentParser
import ControlAPI
import Foundation

/// `surveyctl staff-pin set|unlock`.
struct StaffPinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "staff-pin",
        abstract: "Set the kiosk's staff PIN, or end a lockout after wrong PINs.",
        subcommands: [Set.self, Unlock.self])

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read a PIN twice (4 to 12 digits, not echoed) and write its salted hash to a file (mode 0600).",
            discussion: "Point kioskStaffPinFile at the file (or pass it as the systemd credential surveyd-staff-pin), then reload surveyd (SIGHUP) or restart it. The PIN itself is stored nowhere.")
        @Option(help: ArgumentHelp("The file to write, e.g. /etc/surveyd/staff-pin.", valueName: "path"))
        var file: String
        @Option(help: ArgumentHelp("Make this user (the daemon's) the file's owner; needs root.", valueName: "user"))
        var owner: String?
        @Option(help: ArgumentHelp("PBKDF2-HMAC-SHA256 iterations, from 210000 to 10000000 (the more, the slower a PIN check on the kiosk and a search of a stolen file).", valueName: "n"))
        var iterations = StaffPinHash.defaultIterations

        func validate() throws {
            guard StaffPinHash.iterationRange.contains(iterations) else {
                throw ValidationError("--iterations must be from \(StaffPinHash.iterationRange.lowerBound) to \(StaffPinHash.iterationRange.upperBound)")
            }
        }

        func run() async throws {
            var owner: (uid: uid_t, gid: gid_t)?
            if let name = self.owner {
                guard let entry = getpwnam(name) else { throw ValidationError("there is no user \(name); give the user surveyd runs as") }
                owner = (entry.pointee.pw_uid, entry.pointee.pw_gid)
            }
            let first = try PinPrompt.read("New staff PIN (4 to 12 digits): ")
            do {
                try StaffPinHash.check(first)
            } catch {
                printError("surveyctl: \(error.message)")
                throw ExitCode(65)
            }
            let second = try PinPrompt.read("The same PIN again: ")
            guard first == second else {
                printError("surveyctl: the two PINs differ; nothing was written. Run the command again.")
                throw ExitCode(65)
            }
            do {
                try StaffPinHash(pin: first, iterations: iterations).write(to: file, owner: owner)
            } catch {
                printError("surveyctl: \(error.message)")
                throw ExitCode(73)
            }
            print("wrote the staff PIN's hash to \(file) (mode 0600); reload surveyd (systemctl reload surveyd) to use it")
        }
    }

    struct Unlock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End a lockout of the staff screen after wrong PINs, and forget the wrong PINs.")
        @OptionGroup var daemon: DaemonOptions

        func run() async throws {
            let view = try await request { () async throws(ControlClientError) in try await daemon.client.unlockStaffPin() }
            daemon.output(view) { ["staff PIN unlocked"] + view.lines }
        }
    }
}

/// Reads a line from the terminal without echo (from standard input as it is when it is not a terminal).
enum PinPrompt {
    static func read(_ prompt: String) throws -> String {
        let terminal = isatty(STDIN_FILENO) == 1
        var saved = termios()
        if terminal {
            FileHandle.standardError.write(Data(prompt.utf8))
            tcgetattr(STDIN_FILENO, &saved)
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        }
        defer {
            if terminal {
                tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
                FileHandle.standardError.write(Data("\n".utf8))
            }
        }
        guard let line = readLine(strippingNewline: true) else {
            throw ValidationError("no PIN was given (end of input)")
        }
        return line
    }
}
