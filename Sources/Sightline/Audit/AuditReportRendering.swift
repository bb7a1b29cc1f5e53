import Foundation
import SightlineFrames
import SightlineRecords

/// Ratios are written with 4 decimals, seconds with 6; an undefined ratio is null (JSON) or n/a (table).
private func ratioJSON(_ value: Double?) -> JSON { value.map { .fixed($0, digits: 4) } ?? .null }
private func ratioText(_ value: Double?) -> String { value.map { JSON.format($0, digits: 4) } ?? "n/a" }
private func int(_ value: Int) -> JSON { .int(Int64(value)) }

extension Box {
    /// "x 1.00 y 2.00 w 3.00 h 4.00"
    var text: String {
        "x \(JSON.format(x, digits: Precision.pixels)) y \(JSON.format(y, digits: Precision.pixels)) "
            + "w \(JSON.format(w, digits: Precision.pixels)) h \(JSON.format(h, digits: Precision.pixels))"
    }
}

extension CodeObservation {
    /// `qr "payload"` with the payload quoted and escaped.
    var label: String { "\(symbology.rawValue) \(String(reflecting: text))" }
}

extension DetectionMetrics {
    var json: JSON {
        .object([("true_positives", int(truePositives)), ("false_positives", int(falsePositives)),
                 ("false_negatives", int(falseNegatives)), ("precision", ratioJSON(precision)),
                 ("recall", ratioJSON(recall)), ("f1", ratioJSON(f1)), ("mean_iou", ratioJSON(meanIoU)),
                 ("false_positives_per_100_frames", falsePositivesPer100Frames.map { .fixed($0, digits: 3) } ?? .null)])
    }

    var text: String {
        "TP \(truePositives)  FP \(falsePositives)  FN \(falseNegatives)   precision \(ratioText(precision))  "
            + "recall \(ratioText(recall))  F1 \(ratioText(f1))   mean IoU \(ratioText(meanIoU))"
            + "   FP/100 frames \(falsePositivesPer100Frames.map { JSON.format($0, digits: 2) } ?? "n/a")"
    }
}

extension TrackingResult {
    var json: JSON {
        switch self {
        case .unavailable(let reason):
            return .object([("available", .bool(false)), ("reason", .string(reason))])
        case .available(let m, let id, let hota):
            return .object([
                ("available", .bool(true)),
                ("mota", ratioJSON(m.mota)),
                ("motp", ratioJSON(m.motp)),
                ("motp_is", .string("mean 1-IoU of the matched pairs (lower is better)")),
                ("mean_iou", ratioJSON(m.motp.map { 1 - $0 })),
                ("idf1", ratioJSON(id.idF1)), ("idp", ratioJSON(id.idPrecision)), ("idr", ratioJSON(id.idRecall)),
                ("id_true_positives", int(id.idTruePositives)), ("id_false_positives", int(id.idFalsePositives)),
                ("id_false_negatives", int(id.idFalseNegatives)),
                ("hota", ratioJSON(hota.hota)), ("deta", ratioJSON(hota.detA)), ("assa", ratioJSON(hota.assA)),
                ("detre", ratioJSON(hota.detRe)), ("detpr", ratioJSON(hota.detPr)),
                ("assre", ratioJSON(hota.assRe)), ("asspr", ratioJSON(hota.assPr)), ("loca", ratioJSON(hota.locA)),
                ("id_switches", int(m.switches)), ("fragmentations", int(m.fragmentations)),
                ("truth_tracks", int(m.uniqueObjects)), ("mostly_tracked", int(m.mostlyTracked)),
                ("partially_tracked", int(m.partiallyTracked)), ("mostly_lost", int(m.mostlyLost)),
                ("objects", int(m.objects)), ("matches", int(m.matched)), ("misses", int(m.misses)),
                ("false_positives", int(m.falsePositives)),
            ])
        }
    }

    var lines: [String] {
        switch self {
        case .unavailable(let reason):
            return ["not available: \(reason)"]
        case .available(let m, let id, let hota):
            return [
                "MOTA \(ratioText(m.mota))  MOTP \(ratioText(m.motp)) (mean 1-IoU; mean IoU \(ratioText(m.motp.map { 1 - $0 })))"
                    + "  IDF1 \(ratioText(id.idF1))  IDP \(ratioText(id.idPrecision))  IDR \(ratioText(id.idRecall))",
                "HOTA \(ratioText(hota.hota))  DetA \(ratioText(hota.detA))  AssA \(ratioText(hota.assA))"
                    + "  (mean over IoU thresholds 0.05..0.95)",
                "ID switches \(m.switches)  fragmentations \(m.fragmentations)  truth tracks \(m.uniqueObjects): "
                    + "mostly tracked \(m.mostlyTracked), partially \(m.partiallyTracked), mostly lost \(m.mostlyLost)",
                "matches \(m.matched)  misses \(m.misses)  false positives \(m.falsePositives)  of \(m.objects) truth objects",
            ]
        }
    }
}

extension CodePayloadMetrics.Counts {
    var json: [(String, JSON)] {
        [("expected", int(expected)), ("correct", int(correct)), ("wrong_payload", int(wrongPayload)),
         ("missed", int(missed)), ("extra", int(extra)), ("accuracy", ratioJSON(accuracy))]
    }
}

extension CodePayloadMetrics {
    var json: JSON {
        let symbologies = bySymbology.keys.sorted().map { ($0.rawValue, JSON.object(bySymbology[$0]?.json ?? [])) }
        let first = firstReads.map { r -> JSON in
            .object([("track", r.track.map { int($0) } ?? .null), ("symbology", .string(r.symbology.rawValue)),
                     ("text", .string(r.text)), ("first_frame", int(r.firstFrame)),
                     ("first_t", .fixed(r.firstTime, digits: Precision.seconds)),
                     ("read_frame", r.readFrame.map { int($0) } ?? .null),
                     ("read_t", r.readTime.map { .fixed($0, digits: Precision.seconds) } ?? .null),
                     ("latency_frames", r.latencyFrames.map { int($0) } ?? .null),
                     ("latency_seconds", r.latencySeconds.map { .fixed($0, digits: Precision.seconds) } ?? .null)])
        }
        return .object(total.json + [("reads", int(reads)), ("read_precision", ratioJSON(readPrecision)),
                                     ("by_symbology", .object(symbologies)), ("first_read", .array(first))])
    }
}

extension KindAudit {
    var json: JSON {
        if let skipped { return .object([("skipped", .string(skipped))]) }
        var members: [(String, JSON)] = [("detection", detection.json), ("average_precision", ratioJSON(averagePrecision))]
        if averagePrecision == nil { members.append(("average_precision_note", .string(averagePrecisionNote ?? ""))) }
        if let payloads { members.append(("payloads", payloads.json)) }
        members.append(("tracking", tracking.json))
        return .object(members)
    }

    func lines(iou: Double) -> [String] {
        var out = [kind.rawValue]
        if let skipped { return out + ["  skipped: \(skipped)"] }
        func row(_ label: String, _ text: String) { out.append("  " + label.padding(toLength: 13, withPad: " ", startingAt: 0) + text) }
        row("detection", detection.text)
        row("AP", averagePrecision.map { "\(ratioText($0)) (COCO 101-point, IoU >= \(JSON.format(iou, digits: 2)))" }
                ?? "not available: \(averagePrecisionNote ?? "")")
        if let payloads {
            let total = payloads.total
            row("payloads", "correct \(total.correct)/\(total.expected) (\(ratioText(total.accuracy)))  wrong payload \(total.wrongPayload)"
                + "  missed \(total.missed)  extra \(total.extra)  read precision \(ratioText(payloads.readPrecision))")
            for symbology in payloads.bySymbology.keys.sorted() {
                guard let c = payloads.bySymbology[symbology] else { continue }
                row("", symbology.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)
                    + "correct \(c.correct)/\(c.expected)  wrong payload \(c.wrongPayload)  missed \(c.missed)  extra \(c.extra)")
            }
            for (i, r) in payloads.firstReads.enumerated() {
                let who = (r.track.map { "track \($0)  " } ?? "") + "\(r.symbology.rawValue) \(String(reflecting: r.text))"
                let when: String
                if let frame = r.readFrame, let frames = r.latencyFrames, let seconds = r.latencySeconds {
                    when = "appears frame \(r.firstFrame), read frame \(frame): latency \(frames) frames (\(JSON.format(seconds, digits: 3)) s)"
                } else {
                    when = "appears frame \(r.firstFrame), never read"
                }
                row(i == 0 ? "first read" : "", "\(who)  \(when)")
            }
        }
        for (i, line) in tracking.lines.enumerated() { row(i == 0 ? "tracking" : "", line) }
        return out
    }
}

extension FrameIssues {
    var json: JSON {
        var members: [(String, JSON)] = [("index", int(index)), ("t", .fixed(t, digits: Precision.seconds))]
        if !missedFaces.isEmpty || !extraFaces.isEmpty {
            members.append(("faces", .object([("missed", .array(missedFaces.map(\.json))),
                                             ("extra", .array(extraFaces.map(\.json)))])))
        }
        if !missedCodes.isEmpty || !extraCodes.isEmpty || !wrongPayloads.isEmpty {
            members.append(("codes", .object([
                ("missed", .array(missedCodes.map(\.json))),
                ("extra", .array(extraCodes.map(\.json))),
                ("wrong_payload", .array(wrongPayloads.map { .object([("truth", $0.truth.json), ("read", $0.read.json)]) })),
            ])))
        }
        if !idSwitches.isEmpty {
            members.append(("id_switches", .array(idSwitches.map {
                .object([("kind", .string($0.kind.rawValue)), ("truth_track", int($0.truthTrack)),
                         ("from", int($0.from)), ("to", int($0.to))])
            })))
        }
        return .object(members)
    }

    var lines: [String] {
        let head = "  frame \(index) (\(JSON.format(t, digits: Precision.seconds)) s)  "
        return missedFaces.map { head + "face missed    \($0.box.text)" }
            + extraFaces.map { head + "face extra     \($0.box.text)" }
            + missedCodes.map { head + "code missed    \($0.label) at \($0.box.text)" }
            + extraCodes.map { head + "code extra     \($0.label) at \($0.box.text)" }
            + wrongPayloads.map { head + "code wrong     \($0.truth.label) read as \($0.read.label) at \($0.read.box.text)" }
            + idSwitches.map { head + "\($0.kind == .faces ? "face" : "code") id switch truth track \($0.truthTrack): track \($0.from) -> \($0.to)" }
    }
}

extension AuditReport {
    /// The report as one JSON object (keys in a fixed order).
    public var json: JSON {
        var members: [(String, JSON)] = [
            ("predicted", .string(predictedPath)), ("truth", .string(truthPath)),
            ("iou", .fixed(options.iou, digits: 2)), ("match", .string(options.matching.rawValue)),
            ("frames", .object([("compared", int(frames)), ("truth_outside_prediction", int(truthFramesOutsidePrediction)),
                                ("truth_without_prediction", int(truthFramesWithoutPrediction)),
                                ("prediction_left_out", int(predictedFramesLeftOut)),
                                ("paired_with_other_times", int(framesWithOtherTimes))])),
        ]
        if let faces { members.append(("faces", faces.json)) }
        if let codes { members.append(("codes", codes.json)) }
        if options.perFrame { members.append(("per_frame", .array(perFrame.map(\.json)))) }
        return .object(members)
    }

    /// The report as a readable table.
    public var table: String {
        var out = ["audit of \(predictedPath) against \(truthPath)"]
        var frameLine = "frames \(frames) compared (matched by \(options.matching.rawValue)), IoU >= \(JSON.format(options.iou, digits: 2))"
        if truthFramesOutsidePrediction > 0 { frameLine += "; \(truthFramesOutsidePrediction) truth frames outside the predicted frames (left out)" }
        if truthFramesWithoutPrediction > 0 { frameLine += "; \(truthFramesWithoutPrediction) truth frames have no predicted frame" }
        if predictedFramesLeftOut > 0 { frameLine += "; \(predictedFramesLeftOut) predicted frames are not in the truth (left out)" }
        out.append(frameLine)
        if framesWithOtherTimes > 0 {
            out.append("note: \(framesWithOtherTimes) frames paired by index have times more than half a frame apart (--match time pairs by time)")
        }
        for audit in [faces, codes].compactMap({ $0 }) {
            out.append("")
            out += audit.lines(iou: options.iou)
        }
        if options.perFrame {
            out.append("")
            out.append(perFrame.isEmpty ? "per frame: no missed, extra or wrong-payload items or ID switches" : "per frame: missed, extra and wrong-payload items, ID switches")
            out += perFrame.flatMap(\.lines)
        }
        return out.joined(separator: "\n") + "\n"
    }
}
