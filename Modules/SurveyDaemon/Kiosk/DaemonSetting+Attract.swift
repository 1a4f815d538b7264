import Kiosk

/// The settings of the welcome screen's attract loop.
extension DaemonSetting {
    static let attract: [DaemonSetting] = [
        DaemonSetting(
            \.kioskAttractFolder, key: "kioskAttractFolder", variable: "SURVEYD_KIOSK_ATTRACT_FOLDER", flag: "kiosk-attract-folder",
            kind: .text(valueName: "folder", accepts: "a folder of PNG, JPEG or SVG files, each at most 2 MiB, at most 32 files and 16 MiB together"),
            none: "no attract loop: the welcome screen stays as it is",
            doc: "the images the kiosk's welcome screen shows in turn after `kioskAttractSeconds` untouched within opening hours (in the order of their names; files starting with `.` are left out); read at start (exit 78 naming the file and the limit when one is too large or not an image) and again on SIGHUP"),
        DaemonSetting(
            \.kioskAttractSeconds, key: "kioskAttractSeconds", variable: "SURVEYD_KIOSK_ATTRACT_SECONDS", flag: "kiosk-attract-seconds",
            kind: .wholeNumber(.from(5, to: 24 * 3600, "1 day"), valueName: "seconds"), default: 60,
            doc: "how long the kiosk's welcome screen stays untouched before its attract loop (with `kioskAttractFolder`); a new value needs a restart"),
    ]
}
