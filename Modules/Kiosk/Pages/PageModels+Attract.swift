import Mustache

/// The welcome screen's attract loop: the operator's images in turn, with the survey's title and
/// "Touch to start", shown by the page's script after ``attractSeconds`` untouched. A touch brings
/// the welcome screen back (it starts nothing). Everything moves in the browser: the daemon only
/// served the images, once, for a year of caching.
struct AttractLoop: Sendable {
    var attractSeconds: Int
    /// The images' paths, in the folder's order.
    var attractImages: [String]
    var attractTitle: String
    var attractTouch: String

    /// "Touch to start", in `language`.
    static func touch(_ language: KioskLanguage) -> String {
        switch language {
        case .ko: "화면을 눌러 시작하세요"
        case .en: "Touch to start"
        }
    }
}

extension AttractLoop: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "attractSeconds": self.attractSeconds
        case "attractImages": self.attractImages
        case "attractTitle": self.attractTitle
        case "attractTouch": self.attractTouch
        default: nil
        }
    }
}
