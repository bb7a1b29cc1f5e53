import Foundation
import SightlineFrames
import SightlineRecords

/// The report file, written under a temporary name beside it and renamed when complete (see
/// `AtomicFile`), so a failed or interrupted run never leaves half a page at the path asked for.
public final class ReportOutput {
    private let file: AtomicFile
    public var path: String { file.path }

    /// Creates the temporary file at once, so an unwritable destination fails before any work.
    public init(path: String) throws { file = try AtomicFile(path: path) }

    /// Writes the whole page and gives it its name.
    public func commit(_ page: Data) throws {
        try file.write(page)
        try file.commit(sync: true)
    }

    /// Removes the temporary file (nothing is left at `path`).
    public func discard() { file.discard() }
}
