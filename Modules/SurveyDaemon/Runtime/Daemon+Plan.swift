#if canImport(Glibc)
import Glibc
#endif
import Kiosk
import Storage

/// What the daemon checks and prepares before it opens anything: the state directory, the
/// kiosk's address, settings and brand, the socket's group.
extension Daemon {
    /// Creates the state directory (0700, with missing parents; each new directory made durable
    /// by an fsync of its parent) or sets an existing one to 0700.
    static func makeDirectory(_ path: String) throws {
        do {
            try PrivateDirectory.create(path, intermediates: true)
        } catch let error as StorageError {
            throw DaemonStartError("cannot create the state directory \(path): \(error.message); create it or give another --state-dir")
        }
    }

    /// The kiosk's address, settings and brand, checked before anything is opened.
    /// - Throws: `ConfigurationError` for a logo or colour that cannot be used (exit 78).
    static func kioskPlan(_ configuration: DaemonConfiguration) throws -> (address: ListenAddress, settings: KioskSettings, brand: KioskBrand)? {
        guard let listen = configuration.kioskListen else { return nil }
        let brand = try KioskBrandFiles.brand(from: configuration)
        do {
            let settings = KioskServer.settings(from: configuration)
            try settings.check()
            return (try ListenAddress(parsing: listen), settings, brand)
        } catch {
            throw DaemonStartError("cannot serve the kiosk pages on \(listen): \(error); fix kioskListen or the kiosk settings")
        }
    }

    static func group(_ name: String?) throws -> (name: String, gid: UInt32)? {
        guard let name else { return nil }
        guard let entry = getgrnam(name) else {
            throw DaemonStartError("the socket group \(name) does not exist; create it or fix socketGroup")
        }
        return (name, entry.pointee.gr_gid)
    }
}
