import Foundation
import Kiosk

/// The welcome screen's attract images from `kioskAttractFolder`: every file of the folder (not
/// those whose name starts with `.`, nor subfolders), in the order of their names, each checked
/// by content and size, and the folder's totals. As with the logo, a refusal stops the daemon at
/// start (exit 78) and, on a reload (SIGHUP), leaves the images shown and is logged.
enum KioskAttractFiles {
    /// The images of `kioskAttractFolder`; none when it is unset.
    /// - Throws: `ConfigurationError` naming the file or the folder and the limit it passes.
    static func images(from configuration: DaemonConfiguration) throws(ConfigurationError) -> [KioskAttractImage] {
        guard let folder = configuration.kioskAttractFolder else { return [] }
        do {
            return try read(folder)
        } catch {
            throw ConfigurationError(source: "kioskAttractFolder", error.message)
        }
    }

    static func read(_ folder: String) throws(KioskBrandError) -> [KioskAttractImage] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw KioskBrandError(.attractUnreadable, "the attract folder \(folder) does not exist or is not a folder; give a folder of PNG, JPEG or SVG files, or leave kioskAttractFolder out")
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasPrefix(".") }.sorted()
        } catch {
            throw KioskBrandError(.attractUnreadable, "the attract folder \(folder) cannot be listed (\(error.localizedDescription)); check its permissions for the daemon's user")
        }
        var images: [KioskAttractImage] = []
        var total = 0
        for name in names {
            let file = (folder as NSString).appendingPathComponent(name)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            guard images.count < KioskAttractImage.maxCount else {
                throw KioskBrandError(.attractTooLarge, "the attract folder \(folder) holds more than \(KioskAttractImage.maxCount) images, the most it may hold (\(file) is one too many): take some out")
            }
            let image = try KioskAttractImage(bytes: try bytes(of: file), name: name, file: file)
            total += image.bytes.count
            guard total <= KioskAttractImage.maxTotalBytes else {
                throw KioskBrandError(.attractTooLarge, "the attract images in \(folder) have more than \(KioskAttractImage.maxTotalBytes) bytes (16 MiB) together, the most they may have (passed at \(file)): make them smaller or fewer")
            }
            images.append(image)
        }
        try KioskAttractImage.checkFolder(images, folder: folder)
        return images
    }

    /// The file's bytes, at most one more than an image may have (enough to refuse it).
    static func bytes(of file: String) throws(KioskBrandError) -> [UInt8] {
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: file))
            defer { try? handle.close() }
            return [UInt8](try handle.read(upToCount: KioskAttractImage.maxBytes + 1) ?? Data())
        } catch {
            throw KioskBrandError(.attractUnreadable, "the attract image \(file) cannot be read (\(error.localizedDescription)); check its permissions for the daemon's user")
        }
    }
}
