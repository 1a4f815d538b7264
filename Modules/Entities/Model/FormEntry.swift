/// What a respondent entered on a question's form, field by field, as a page posts it: the
/// option values chosen (or the text typed in the answer field) and the free text written for
/// the extra option.
///
/// Unlike typed words, nothing here is split, joined or looked up by position: each value is
/// the exact `value` of an option the form offers, or the exact text of its field.
/// `Validation` reads an entry against its form (`FormEntry.reading(for:)`).
public struct FormEntry: Sendable, Hashable {
    /// The answer field's text, the chosen option's value, the chosen options' values (a
    /// checkbox), or the score chosen.
    public var values: [String]
    /// The free text of a `radioWithInput` form's extra option (``ChoiceOption/extraValue``);
    /// read only when that option is chosen.
    public var extra: String?

    public init(values: [String] = [], extra: String? = nil) {
        self.values = values
        self.extra = extra
    }

    /// Nothing chosen and nothing typed, not even the extra option's text (spaces count as nothing).
    public var isBlank: Bool { nothingChosen && (extra ?? "").isBlank }

    /// No option chosen and no text in the answer field (the extra option's text aside).
    public var nothingChosen: Bool { values.allSatisfy(\.isBlank) }
}
