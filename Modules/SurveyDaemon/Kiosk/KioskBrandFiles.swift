import Foundation
import Kiosk

/// The kiosk's brand from the configuration: the logo file read and checked, the accent colour
/// read. At start a refusal stops the daemon (exit 78); on a reload (SIGHUP) the pages keep the
/// logo they show and the refusal is logged.
enum KioskBrandFiles {
    /// The logo of `kioskLogoFile` (nil when unset), the colour of `kioskAccentColor` and the
    /// images of `kioskAttractFolder`.
    /// - Throws: `ConfigurationError` naming the file or the colour and what is wrong.
    static func brand(from configuration: DaemonConfiguration) throws(ConfigurationError) -> KioskBrand {
        KioskBrand(logo: try logo(from: configuration), accent: try accent(from: configuration), attract: try KioskAttractFiles.images(from: configuration))
    }

    static func logo(from configuration: DaemonConfiguration) throws(ConfigurationError) -> KioskLogo? {
        guard let file = configuration.kioskLogoFile else { return nil }
        do {
            return try KioskLogo(bytes: try read(file), file: file)
        } catch {
            throw ConfigurationError(source: "kioskLogoFile", error.message)
        }
    }

    static func accent(from configuration: DaemonConfiguration) throws(ConfigurationError) -> KioskAccentColor? {
        guard let text = configuration.kioskAccentColor else { return nil }
        do {
            return try KioskAccentColor(text)
        } catch {
            throw ConfigurationError(source: "kioskAccentColor", error.message)
        }
    }

    /// The file's bytes, at most one more than a logo may have (enough to refuse it).
    static func read(_ file: String) throws(KioskBrandError) -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else {
            throw KioskBrandError(.logoUnreadable, "the logo \(file) does not exist; give the path of a PNG or SVG file, or leave kioskLogoFile out")
        }
        guard !isDirectory.boolValue else {
            throw KioskBrandError(.logoUnreadable, "the logo \(file) is a directory; give the path of a PNG or SVG file")
        }
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: file))
            defer { try? handle.close() }
            return [UInt8](try handle.read(upToCount: KioskLogo.maxBytes + 1) ?? Data())
        } catch {
            throw KioskBrandError(.logoUnreadable, "the logo \(file) cannot be read (\(error.localizedDescription)); check its permissions for the daemon's user")
        }
    }
}
