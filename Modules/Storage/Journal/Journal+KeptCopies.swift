// The copies of damaged bytes that recovery keeps beside the segments (`.corrupt`, `.torn-…`):
// listing them and removing them once what they held is no longer needed.

extension Journal {
    /// The copies of damaged bytes kept beside the segments (`segment-….log.corrupt`,
    /// `segment-….log.torn-<offset>`), by file name, sorted. They may hold records that were
    /// readable once, respondents' words included.
    public func keptCopies() throws -> [String] {
        do {
            return try io.list(directory).filter(Journal.isKeptCopy).sorted()
        } catch {
            throw StorageError(code: .ioFailed, message: "Cannot list the journal directory \(directory); check its permissions.", cause: error as? SystemCallError)
        }
    }

    /// Removes the kept copies named (names that are not kept copies are left alone), then
    /// fsyncs the directory. Returns how many files were removed.
    @discardableResult
    public func removeKeptCopies(_ names: [String]) throws -> Int {
        var removed = 0
        for name in names where Journal.isKeptCopy(name) {
            do {
                if try io.unlinkIfPresent(directory + "/" + name) { removed += 1 }
            } catch {
                throw StorageError(code: .ioFailed, message: "Cannot remove the kept copy \(name) in \(directory); check permissions.", cause: error as? SystemCallError)
            }
        }
        if removed > 0 { try io.fsyncDirectory(directory) }
        return removed
    }

    static func isKeptCopy(_ name: String) -> Bool {
        name.hasPrefix("segment-") && !name.contains("/") && (name.hasSuffix(".log.corrupt") || name.contains(".log.torn-"))
    }
}
