import Mustache

/// What the consent page's template reads (see `PageModels.swift` for the naming rule: keys are
/// unique across nesting levels).
struct ConsentPage: Sendable {
    var page: PageFrame
    var s: KioskStrings
    var heading: String
    var blocks: [ConsentBlock]
    var csrf: String
    /// The notice's version, posted back with "I agree".
    var version: String
}

/// A block of the notice: exactly one of the three is set. (Names no outer value uses: a key an
/// inner value lacks is looked up in the outer ones.)
struct ConsentBlock: Sendable {
    var blockHeading: ConsentLine?
    var blockParagraph: ConsentLine?
    var blockList: ConsentList?

    init(_ block: KioskConsentNotice.Block) {
        switch block {
        case .heading(let spans): blockHeading = ConsentLine(spans)
        case .paragraph(let spans): blockParagraph = ConsentLine(spans)
        case .list(let items): blockList = ConsentList(listItems: items.map(ConsentLine.init))
        }
    }
}

struct ConsentList: Sendable {
    var listItems: [ConsentLine]
}

/// A heading, a paragraph or a list item: runs of text, which the template escapes.
struct ConsentLine: Sendable {
    var lineSpans: [ConsentSpan]

    init(_ spans: [KioskConsentNotice.Span]) {
        lineSpans = spans.map(ConsentSpan.init)
    }
}

struct ConsentSpan: Sendable {
    var spanText: String
    var spanBold: Bool

    init(_ span: KioskConsentNotice.Span) {
        spanText = span.text
        spanBold = span.bold
    }
}

extension ConsentPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "page": self.page
        case "s": self.s
        case "heading": self.heading
        case "blocks": self.blocks
        case "csrf": self.csrf
        case "version": self.version
        default: nil
        }
    }
}

extension ConsentBlock: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "blockHeading": self.blockHeading
        case "blockParagraph": self.blockParagraph
        case "blockList": self.blockList
        default: nil
        }
    }
}

extension ConsentList: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "listItems": self.listItems
        default: nil
        }
    }
}

extension ConsentLine: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "lineSpans": self.lineSpans
        default: nil
        }
    }
}

extension ConsentSpan: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "spanText": self.spanText
        case "spanBold": self.spanBold
        default: nil
        }
    }
}

extension KioskRenderer {
    /// The consent notice with "I agree" and "No, thanks".
    func consent(_ notice: KioskConsentNotice, language: KioskLanguage, csrf: String) -> String {
        let strings = KioskStrings.of(language)
        // The notice's own first heading is the page's, shown once.
        var blocks = notice.blocks
        var heading = strings.consentTitle
        if case .heading(let spans) = blocks.first {
            heading = spans.map(\.text).joined()
            blocks.removeFirst()
        }
        var frame = frame(language, title: heading, bodyClass: "consent-page", noscriptRefresh: Refresh(seconds: settings.sessionExpirySeconds, url: "/"))
        frame.idleSeconds = settings.idleSeconds
        frame.countdownSeconds = settings.idleCountdownSeconds
        let page = ConsentPage(page: frame, s: strings, heading: heading, blocks: blocks.map(ConsentBlock.init), csrf: csrf, version: notice.version)
        return render(page, "consent")
    }

    /// The neutral thank-you after "No, thanks", back to the welcome screen after the end
    /// screen's time.
    func declined(language: KioskLanguage) -> String {
        let strings = KioskStrings.of(language)
        let seconds = settings.endScreenSeconds
        var frame = frame(language, title: strings.declinedTitle, bodyClass: "end-page declined-page", noscriptRefresh: Refresh(seconds: seconds, url: "/"))
        frame.returnSeconds = seconds
        return render(EndPage(page: frame, s: strings, heading: strings.declinedTitle, message: strings.declinedBody, seconds: seconds), "end")
    }
}
