import Foundation
import SightlineFrames

extension Box {
    package var json: JSON {
        .object([("x", .fixed(x, digits: Precision.pixels)), ("y", .fixed(y, digits: Precision.pixels)),
                 ("w", .fixed(w, digits: Precision.pixels)), ("h", .fixed(h, digits: Precision.pixels))])
    }
}

extension Point {
    package var json: JSON { .array([.fixed(x, digits: Precision.pixels), .fixed(y, digits: Precision.pixels)]) }
}

extension FaceObservation {
    package var json: JSON {
        var members: [(String, JSON)] = []
        if let track { members.append(("track", .int(Int64(track)))) }
        if let identity { members.append(("identity", .int(Int64(identity)))) }
        members += [("box", box.json), ("score", .fixed(score, digits: Precision.score))]
        if source != .detected { members.append(("source", .string(source.rawValue))) }
        if let landmarks { members.append(("landmarks", landmarks.json)) }
        if let a = attributes {
            if let p = a.leftEye { members.append(("left_eye", p.json)) }
            if let p = a.rightEye { members.append(("right_eye", p.json)) }
            if let p = a.mouth { members.append(("mouth", p.json)) }
            if let b = a.smile { members.append(("smile", .bool(b))) }
            if let b = a.leftEyeClosed { members.append(("left_eye_closed", .bool(b))) }
            if let b = a.rightEyeClosed { members.append(("right_eye_closed", .bool(b))) }
            if let r = a.roll { members.append(("roll", .fixed(r, digits: 1))) }
        }
        return .object(members)
    }
}

extension FaceLandmarks {
    package var json: JSON {
        .object([("left_eye", leftEye.json), ("right_eye", rightEye.json), ("nose", nose.json),
                 ("mouth_left", mouthLeft.json), ("mouth_right", mouthRight.json)])
    }
}

extension CodeObservation {
    package var json: JSON {
        var members: [(String, JSON)] = []
        if let track { members.append(("track", .int(Int64(track)))) }
        members += [("symbology", .string(symbology.rawValue)), ("text", .string(text))]
        if isBinary { members.append(("bytes", .string(Data(bytes).base64EncodedString()))) }
        members.append(("box", box.json))
        members.append(("polygon", .array(polygon.map(\.json))))
        if source != .detected { members.append(("source", .string(source.rawValue))) }
        if let state { members.append(("state", .string(state.rawValue))) }
        return .object(members)
    }
}

extension FrameRecord {
    public var json: JSON { json(type: "frame") }

    /// A frame of a shard's warm-up: the same fields under another type, so readers of frames
    /// pass it by and `merge` can join tracks on it.
    public var warmupJSON: JSON { json(type: "warmup") }

    private func json(type: String) -> JSON {
        var members: [(String, JSON)] = [("type", .string(type)), ("index", .int(Int64(index))), ("pts", .int(pts)),
                                         ("t", .fixed(t, digits: Precision.seconds))]
        // Only a frame whose size is not the stream record's says its size.
        if let frameSize { members += [("width", .int(Int64(frameSize.width))), ("height", .int(Int64(frameSize.height)))] }
        members += [
            ("status", .object([("faces", .string(faceStatus.rawValue)), ("codes", .string(codeStatus.rawValue))])),
        ]
        if let faceSearch { members.append(("face_search", faceSearch.json)) }
        members += [
            ("faces", .array(faces.map(\.json))),
            ("codes", .array(codes.map(\.json))),
        ]
        return .object(members)
    }
}

extension FaceSearch {
    package var json: JSON {
        var members: [(String, JSON)] = []
        if let wholeScale { members.append(("whole", .fixed(wholeScale, digits: 4))) }
        if let tile {
            members.append(("tile", .object([("index", .int(Int64(tile.index))), ("of", .int(Int64(tile.count))), ("box", tile.box.json)])))
        }
        if let everyTile { members.append(("every_tile", .int(Int64(everyTile)))) }
        return .object(members)
    }
}

extension TrackRecord {
    public var json: JSON {
        var members: [(String, JSON)] = [
            ("type", .string("track")),
            ("id", .int(Int64(id))),
            ("kind", .string(kind.rawValue)),
        ]
        if let identity { members.append(("identity", .int(Int64(identity)))) }
        members += [
            ("first_frame", .int(Int64(firstFrame))),
            ("last_frame", .int(Int64(lastFrame))),
            ("first_t", .fixed(firstT, digits: Precision.seconds)),
            ("last_t", .fixed(lastT, digits: Precision.seconds)),
            ("frames_observed", .int(Int64(framesObserved))),
            ("frames_interpolated", .int(Int64(framesInterpolated))),
        ]
        if let meanScore { members.append(("mean_score", .fixed(meanScore, digits: Precision.score))) }
        if let symbology { members.append(("symbology", .string(symbology.rawValue))) }
        if let text { members.append(("text", .string(text))) }
        if let bytes, !(text ?? "").utf8.elementsEqual(bytes) {
            members.append(("bytes", .string(Data(bytes).base64EncodedString())))
        }
        if let state { members.append(("state", .string(state.rawValue))) }
        members += [("best_box", bestBox.json), ("best_frame", .int(Int64(bestFrame)))]
        return .object(members)
    }
}

extension CutRecord {
    public var json: JSON {
        .object([("type", .string("cut")), ("index", .int(Int64(index))), ("pts", .int(pts)),
                 ("t", .fixed(t, digits: Precision.seconds)), ("score", .fixed(score, digits: Precision.score))])
    }
}

extension FrameSize {
    /// [width, height].
    package var json: JSON { .array([.int(Int64(width)), .int(Int64(height))]) }
}

extension DiscontinuityRecord {
    public var json: JSON {
        var members: [(String, JSON)] = [("type", .string("discontinuity")), ("index", .int(Int64(index))), ("pts", .int(pts)),
                                         ("t", .fixed(t, digits: Precision.seconds))]
        if let clock {
            members.append(("clock", .object([("old_pts", .int(clock.oldPTS)), ("new_pts", .int(clock.newPTS)),
                                              ("offset", .int(clock.offset))])))
        }
        if let size, let previousSize { members.append(("size", .object([("old", previousSize.json), ("new", size.json)]))) }
        if let reconnect {
            members.append(("reconnect", .object([("seconds", .fixed(reconnect.seconds, digits: 3)),
                                                  ("lost_frames", .int(Int64(reconnect.lostFrames)))])))
        }
        return .object(members)
    }
}

extension IdentityRecord {
    public var json: JSON {
        var members: [(String, JSON)] = [
            ("type", .string("identity")), ("id", .int(Int64(id))), ("tracks", .array(tracks.map { .int(Int64($0)) })),
            ("first_frame", .int(Int64(firstFrame))), ("last_frame", .int(Int64(lastFrame))),
            ("first_t", .fixed(firstT, digits: Precision.seconds)), ("last_t", .fixed(lastT, digits: Precision.seconds)),
            ("frames", .int(Int64(frames))), ("seconds", .fixed(seconds, digits: Precision.seconds)),
            ("best_frame", .int(Int64(bestFrame))), ("best_box", bestBox.json),
        ]
        if let embedding { members.append(("embedding", .array(embedding.values.map { .fixed(Double($0), digits: 5) }))) }
        return .object(members)
    }
}

extension IdentitySample {
    /// Score and embedding are written so they read back as the very numbers linking used.
    public var json: JSON {
        .object([("type", .string("sample")), ("index", .int(Int64(frame))), ("track", .int(Int64(track))),
                 ("score", .exact(score)), ("box", box.json),
                 ("embedding", .array(embedding.values.map { .exact(Double($0)) }))])
    }
}

extension SummaryRecord {
    public var json: JSON {
        var members: [(String, JSON)] = [
            ("type", .string("summary")),
            ("frames", .int(Int64(frames))),
            ("frames_with_faces", .int(Int64(framesWithFaces))),
            ("frames_with_codes", .int(Int64(framesWithCodes))),
            ("face_observations", .int(Int64(faceObservations))),
            ("code_observations", .int(Int64(codeObservations))),
            ("distinct_codes", .int(Int64(distinctCodes))),
            ("tracks", .int(Int64(tracks))),
            ("analyzer_errors", .int(Int64(analyzerErrors))),
            ("corrupt_frames", .int(Int64(damage.corruptFrames))),
            ("out_of_order_frames", .int(Int64(damage.outOfOrderFrames))),
            ("read_error", damage.readError.map { .string($0) } ?? .null),
            ("interrupted", .bool(interrupted)),
        ]
        if live {
            members += [("dropped_frames", .int(Int64(droppedFrames))), ("lost_frames", .int(Int64(lostFrames))),
                        ("frames_before_start", .int(Int64(framesBeforeStart)))]
        }
        if discontinuities > 0 { members.append(("discontinuities", .int(Int64(discontinuities)))) }
        if let latency {
            members.append(("latency_ms", .object([("p50", .fixed(latency.percentile(0.5), digits: 0)),
                                                   ("p95", .fixed(latency.percentile(0.95), digits: 0)),
                                                   ("max", .fixed(latency.maxMilliseconds, digits: 0)),
                                                   ("frames", .int(Int64(latency.frames)))])))
        }
        if let unpublished { members.append(("unpublished", .int(Int64(unpublished)))) }
        if !outputErrors.isEmpty { members.append(("output_errors", .array(outputErrors.map { .string($0) }))) }
        if let wallSeconds { members.append(("wall_seconds", .fixed(wallSeconds, digits: 3))) }
        return .object(members)
    }
}

extension SummaryRecord {
    /// A summary record as written (`json` parsed), for the counts a reader cannot count again
    /// from the frame and track records.
    package init(json o: [String: Any]) {
        self.init()
        func count(_ key: String) -> Int { (o[key] as? NSNumber)?.intValue ?? 0 }
        frames = count("frames")
        tracks = count("tracks")
        analyzerErrors = count("analyzer_errors")
        damage.corruptFrames = count("corrupt_frames")
        damage.outOfOrderFrames = count("out_of_order_frames")
        damage.readError = o["read_error"] as? String
        interrupted = o["interrupted"] as? Bool == true
        live = o["dropped_frames"] != nil || o["lost_frames"] != nil
        droppedFrames = count("dropped_frames")
        lostFrames = count("lost_frames")
        framesBeforeStart = count("frames_before_start")
        discontinuities = count("discontinuities")
        outputErrors = o["output_errors"] as? [String] ?? []
        wallSeconds = (o["wall_seconds"] as? NSNumber)?.doubleValue
    }

    /// Adds what another run's summary counted that its frame records do not show: a shard's, to
    /// the merged summary. Every other field is counted again from the frame and track records
    /// (frames, observations, distinct codes, tracks, dropped frames).
    public mutating func addRunCounts(of other: SummaryRecord) {
        analyzerErrors += other.analyzerErrors
        damage.addCounts(of: other.damage)
        if damage.readError == nil { damage.readError = other.damage.readError }
        if other.interrupted { interrupted = true }
        if other.live { live = true }
        lostFrames += other.lostFrames
        framesBeforeStart += other.framesBeforeStart
        outputErrors += other.outputErrors
        // The runs' wall times added up: the analysis time the merged timeline took.
        if let seconds = other.wallSeconds { wallSeconds = (wallSeconds ?? 0) + seconds }
    }
}
