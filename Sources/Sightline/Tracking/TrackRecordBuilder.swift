import SightlineFrames

/// Builds a track record from the track's observations, frame by frame. Used by the tracker as it
/// runs and by `merge` from frame records, so both must see the same numbers: scores and boxes
/// are compared at the precision the records hold them.
package struct TrackRecordBuilder {
    package private(set) var record: TrackRecord
    private var scoreSum = 0.0
    private var bestQuality = -Double.infinity

    package init(id: Int, kind: TrackKind, box: Box, frame: FrameRecord, code: CodeObservation? = nil) {
        record = TrackRecord(id: id, kind: kind, firstFrame: frame.index, lastFrame: frame.index, firstT: frame.t,
                             lastT: frame.t, symbology: code?.symbology, text: code?.text, bytes: code?.bytes,
                             bestBox: box, bestFrame: frame.index)
    }

    /// Folds one observation into the record.
    package mutating func observe(box: Box, score: Double, source: ObservationSource, frame: FrameRecord) {
        if source == .interpolated {
            record.framesInterpolated += 1
            return
        }
        record.lastFrame = frame.index
        record.lastT = frame.t
        record.framesObserved += 1
        let score = Precision.written(score, digits: Precision.score)
        scoreSum += score
        // Best: highest score (faces) or largest area (codes); the earliest wins a tie.
        let quality = record.kind == .face ? score : Precision.written(box).area
        if quality > bestQuality {
            bestQuality = quality
            record.bestBox = box
            record.bestFrame = frame.index
        }
    }

    /// Folds in an observation of a frame before the track's first one (found by looking back
    /// once the track was found), as if it had come first: an equal best goes to the earlier frame.
    package mutating func observeEarlier(box: Box, score: Double, frame: FrameRecord) {
        record.firstFrame = frame.index
        record.firstT = frame.t
        record.framesObserved += 1
        let score = Precision.written(score, digits: Precision.score)
        scoreSum += score
        let quality = record.kind == .face ? score : Precision.written(box).area
        if quality >= bestQuality {
            bestQuality = quality
            record.bestBox = box
            record.bestFrame = frame.index
        }
    }

    /// Codes: what the track reads (it may be learned after the track began).
    package mutating func read(_ code: CodeObservation) {
        record.symbology = code.symbology
        record.text = code.text
        record.bytes = code.bytes
    }

    package mutating func setState(_ state: CodeTrackState?) { record.state = state }

    /// The record to write: with the mean score of the observed frames (faces).
    package var finished: TrackRecord {
        var r = record
        if r.kind == .face, r.framesObserved > 0 { r.meanScore = scoreSum / Double(r.framesObserved) }
        return r
    }
}
