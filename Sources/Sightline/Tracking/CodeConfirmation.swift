import SightlineFrames

/// The confirmation rule of code tracks: a track is confirmed once its bytes were read in `reads`
/// of the last `window` analyzed frames, and stays confirmed. Symbologies with error correction
/// (QR, Micro QR, DataMatrix, Aztec, PDF417, MaxiCode) confirm on their first read: a misread
/// there needs more errors than Reed–Solomon can correct. 1D codes carry at most a check digit,
/// and readers misread them in noise now and then, but rarely the same bytes twice in a few frames.
public struct CodeConfirmation: Sendable, Equatable {
    /// Reads needed within the window (1: every read confirms). Measured with
    /// Scripts/measure_phantoms.py: a 1D misread in noise can repeat in two neighbouring frames.
    public var reads = 3
    /// Analyzed frames the reads must fall within.
    public var window = 5

    public init(reads: Int = 3, window: Int = 5) {
        self.reads = reads
        self.window = window
    }

    /// Symbologies whose first read confirms.
    public static let selfChecking: Set<Symbology> = [.qr, .microQR, .dataMatrix, .aztec, .pdf417, .maxiCode]

    /// One track's reads, by analyzed-frame number, as far back as the window reaches.
    package struct Tally: Sendable {
        private var recent: [Int] = []
        package private(set) var state = CodeTrackState.unconfirmed

        /// Counts a read in analyzed frame `ordinal` (non-decreasing) and returns the state.
        package mutating func read(_ symbology: Symbology, at ordinal: Int, rule: CodeConfirmation) -> CodeTrackState {
            guard state == .unconfirmed else { return state }
            if recent.last != ordinal { recent.append(ordinal) }
            recent.removeAll { $0 <= ordinal - rule.window }
            if CodeConfirmation.selfChecking.contains(symbology) || recent.count >= rule.reads {
                state = .confirmed
                recent = []
            }
            return state
        }
    }
}
