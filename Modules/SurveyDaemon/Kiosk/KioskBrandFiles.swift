import Foundation
import Kiosk
import Storage

/// The kiosk's brand from the configuration: the logo file read and checked, the accent colour
/// read. At start a refusal stops the daemon (exit 78); on a reload (SIGHUP) the pages keep the
/// logo they show and the refusal is logged.
enum KioskBrandFiles {
    /// The logo of `kioskLogoFile` (nil when unset), the colour of `kioskAccentColor` and the
    /// images of `kioskAttractFolder`.
    /// - Throws: `ConfigurationError` naming the file or the colour and what is wrong.
    static func brand(from configuration: DaemonConfiguration) throws(ConfigurationError) -> KioskBrand {
        KioskBrand(logo: try logo(from: configuration), accent: try accent(from: configuration), attract: try KioskAttractFiles.images(from: configuration), consent: try consent(from: configuration))
    }

    /// The consent notices of `kioskConsentFileKorean` and `kioskConsentFileEnglish` (empty when
    /// both are unset), each with its version: the first 16 hex digits of the file's SHA-256.
    /// - Throws: `ConfigurationError` naming the setting and the path of a file that is missing,
    ///   unreadable, empty or not UTF-8, or the setting of a language the kiosk offers without
    ///   a notice while another has one.
    static func consent(from configuration: DaemonConfiguration) throws(ConfigurationError) -> [KioskLanguage: KioskConsentNotice] {
        let files: [(KioskLanguage, String, String?)] = [
            (.ko, "kioskConsentFileKorean", configuration.kioskConsentFileKorean),
            (.en, "kioskConsentFileEnglish", configuration.kioskConsentFileEnglish),
        ]
        var notices: [KioskLanguage: KioskConsentNotice] = [:]
        for (language, setting, file) in files {
            guard let file else { continue }
            let bytes: [UInt8]
            do {
                bytes = try readNotice(file)
            } catch {
                throw ConfigurationError(source: setting, error.message)
            }
            do {
                notices[language] = try KioskConsentNotice(bytes: bytes, version: ContentDigest.sha256Hex(bytes, digits: 16), file: file)
            } catch {
                throw ConfigurationError(source: setting, error.message)
            }
        }
        guard !notices.isEmpty else { return [:] }
        let offered = KioskServer.settings(from: configuration).languages
        if let missing = files.first(where: { language, _, _ in offered.contains(language) && notices[language] == nil }) {
            throw ConfigurationError(source: missing.1, "the kiosk asks for consent but \(missing.1) is not set, and it offers \(missing.0.rawValue); give a notice for every language the kiosk offers (kioskLanguages), or none")
        }
        return notices
    }

    /// The notice file's bytes, at most one more than a notice may have (enough to refuse it).
    static func readNotice(_ file: String) throws(KioskConsentError) -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else {
            throw KioskConsentError("the consent notice \(file) does not exist; give the path of a UTF-8 text or Markdown file, or leave the setting out")
        }
        guard !isDirectory.boolValue else {
            throw KioskConsentError("the consent notice \(file) is a directory; give the path of a UTF-8 text or Markdown file")
        }
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: file))
            defer { try? handle.close() }
            return [UInt8](try handle.read(upToCount: KioskConsentNotice.maxBytes + 1) ?? Data())
        } catch {
            throw KioskConsentError("the consent notice \(file) cannot be read (\(error.localizedDescription)); check its permissions for the daemon's user")
        }
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
