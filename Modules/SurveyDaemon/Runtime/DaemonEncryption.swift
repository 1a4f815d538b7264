// The journals' encryption at rest, seen from the daemon (doc/security.md): the keys read from
// `encryptionKeyFile` and `encryptionOldKeyFiles` (or systemd's `surveyd-key` credential), the
// check of both journals before either is opened, and what `status`, `health` and the metrics
// show. Every refusal is a `ConfigurationError` (exit 78) that names the file and leaves the
// state directory as it was.

import ControlAPI
import Foundation
import Storage

enum DaemonEncryption {
    /// The name of the systemd credential that holds the key (`LoadCredentialEncrypted=`).
    static let credentialName = "surveyd-key"
    /// The journal directories under the state directory.
    static let journalDirectories = ["sessions", "queue"]

    /// The keys the configuration names; nil when `encryptionKeyFile` is unset (encryption off).
    static func keys(_ configuration: DaemonConfiguration) throws(ConfigurationError) -> JournalKeys? {
        let oldPaths = (configuration.encryptionOldKeyFiles ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard let path = configuration.encryptionKeyFile else {
            if !oldPaths.isEmpty {
                throw ConfigurationError(source: "encryptionOldKeyFiles", "earlier keys are given but no encryptionKeyFile; give the current key too")
            }
            return nil
        }
        let current = try load(path, setting: "encryptionKeyFile")
        var old: [JournalKey] = []
        for oldPath in oldPaths { old.append(try load(oldPath, setting: "encryptionOldKeyFiles")) }
        return JournalKeys(current: current, old: old)
    }

    private static func load(_ path: String, setting: String) throws(ConfigurationError) -> JournalKey {
        do {
            return try JournalKey.load(from: path)
        } catch let error as StorageError {
            throw ConfigurationError(source: setting, error.message)
        } catch {
            throw ConfigurationError(source: setting, "the key file \(path) cannot be read: \(error)")
        }
    }

    /// Checks both journals of `state` against `keys` before either is opened, changing nothing.
    static func check(state: String, keys: JournalKeys?) throws(ConfigurationError) {
        for name in journalDirectories {
            do {
                try Journal.checkKeys(directory: state + "/" + name, keys: keys)
            } catch let error as StorageError where error.code == .keyRefused {
                throw ConfigurationError(source: "state directory \(state)", error.message + " The keys come from encryptionKeyFile (or the \(credentialName) credential) and encryptionOldKeyFiles.")
            } catch {
                // Anything else (an unreadable segment) is reported by the opening that follows.
            }
        }
    }

    /// What `status`, `health` and the metrics show.
    static func view(keys: JournalKeys?, journals: [Journal]) -> EncryptionView {
        guard let keys else { return EncryptionView(state: EncryptionView.off, fingerprint: nil, oldKeySegments: 0, plainSegments: 0) }
        let segments = journals.flatMap { (try? $0.segments()) ?? [] }
        return EncryptionView(
            state: EncryptionView.on, fingerprint: keys.current.fingerprint,
            oldKeySegments: segments.filter { $0.protection == .oldKey }.count,
            plainSegments: segments.filter { $0.protection == .plain }.count,
            setAsideSegments: journals.flatMap { journal in
                journal.setAsideSegments.map { "\(journal.directory.split(separator: "/").last ?? "")/\($0)" }
            })
    }
}

extension DaemonConfiguration {
    /// `$CREDENTIALS_DIRECTORY/surveyd-key` when systemd passed that credential.
    static func credentialKeyFile(environment: [String: String]) -> String? {
        credentialFile(DaemonEncryption.credentialName, environment: environment)
    }

    /// `$CREDENTIALS_DIRECTORY/NAME` when systemd passed that credential.
    static func credentialFile(_ name: String, environment: [String: String]) -> String? {
        guard let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty else { return nil }
        let path = directory + "/" + name
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }
}
