import Foundation
import SightlineFrames
import SightlineRecords
import SightlineTracking

private func rational(_ r: (num: Int, den: Int)) -> JSON { .array([.int(Int64(r.num)), .int(Int64(r.den))]) }

extension ResolvedFaceDetector {
    /// The face detector's settings as the `stream` and `scan` records give them; the network
    /// input only for a known frame size.
    package func recordJSON(frameSize: (width: Int, height: Int)?) -> JSON {
        let options = self.options
        var members: [(String, JSON)] = [("backend", .string(backend.rawValue))]
        if let known = backend.model {
            members += [("runtime", .string(runtimeVersion ?? options.runtime.rawValue))]
            // The precision in effect (records written before it was a member meant f32).
            members.append(("precision", .string(precision.rawValue)))
            members += [
                        ("model", .string(model?.path ?? known.file)),
                        ("sha256", model.map { .string($0.sha256) } ?? .null),
                        ("verified", .bool(model?.verified ?? false)),
                        ("threshold", .fixed(effectiveThreshold, digits: Precision.score)),
                        ("nms_iou", .fixed(options.nmsIoU, digits: 2)),
                        ("min_face", .int(Int64(options.minFace)))]
            if known.kind.fixedInput == nil {
                members.append(("detect_width", .int(Int64(options.detectWidth))))
            }
            // The network input for this stream's frames (width, height).
            if let frameSize, let input = networkInputSize(width: frameSize.width, height: frameSize.height) {
                members.append(("input_size", .array([.int(Int64(input.width)), .int(Int64(input.height))])))
                // Faces under the whole-frame pass's smallest, searched on full-scale tiles in turn.
                if let grid = options.tileGrid(width: frameSize.width, height: frameSize.height) {
                    members.append(("tiles", .object([("count", .int(Int64(grid.count))),
                                                      ("input_size", .array([.int(Int64(grid.inputWidth)), .int(Int64(grid.inputHeight))])),
                                                      ("whole_min_face", .int(Int64(options.wholePassMinFace)))])))
                }
            }
            members.append(("color", .bool(options.color)))
        } else if backend != .off {
            members += [("cascade", .string(backend.cascadeFile.map { ($0 as NSString).lastPathComponent } ?? "")),
                        ("min_face", .int(Int64(options.minFace))),
                        ("detect_width", .int(Int64(options.detectWidth))),
                        ("scale_factor", .fixed(options.scaleFactor, digits: 2)),
                        ("min_neighbors", .int(Int64(options.minNeighbors)))]
        }
        if backend != .off { members.append(("attributes", .bool(options.attributes))) }
        return .object(members)
    }
}

extension CodeReaderOptions {
    /// The code reader's settings as the `stream` and `scan` records give them; `fullEvery`: the
    /// whole-frame search's stride (nil: every frame analyzed gets it).
    package func recordJSON(fullEvery: Int?) -> JSON {
        var members: [(String, JSON)] = [("backend", .string(backend.rawValue))]
        if backend != .off {
            members.append(("symbologies", .array(effectiveSymbologies.map { .string($0.rawValue) })))
        }
        if backend == .zxing {
            members += [("try_harder", .bool(tryHarder)), ("try_rotate", .bool(tryRotate)),
                        ("try_invert", .bool(tryInvert)), ("try_downscale", .bool(tryDownscale)),
                        ("binarizer", .string(binarizer.rawValue)), ("text_mode", .string(textMode.rawValue))]
            if let fullEvery { members.append(("full_every", .int(Int64(fullEvery)))) }
        }
        return .object(members)
    }
}

extension StreamRecord {
    public var json: JSON {
        let s = stream
        var analyzers: [(String, JSON)] = []
        analyzers.append(("faces", faces.recordJSON(frameSize: (s.displayWidth, s.displayHeight))))
        analyzers.append(("codes", codes.recordJSON(fullEvery: schedule.codeFullEvery)))
        var settings: [(String, JSON)] = [("max_gap", .int(Int64(tracking.maxGap))),
                                          ("detect_every", .int(Int64(tracking.detectEvery))),
                                          ("confirm_reads", .int(Int64(tracking.codeConfirmation.reads))),
                                          ("confirm_window", .int(Int64(tracking.codeConfirmation.window)))]
        if !tracking.looksBack { settings.append(("look_back", .bool(false))) }
        analyzers.append(("tracking", .object(settings)))
        if let identities {
            analyzers.append(("identities", .object([("model", .string(KnownModel.sface.file)),
                                                     ("threshold", .fixed(identities.threshold, digits: 3)),
                                                     ("min_face", .fixed(identities.minFace, digits: Precision.pixels)),
                                                     ("samples", .int(Int64(identities.samples))),
                                                     ("spacing", .int(Int64(identities.spacing))),
                                                     ("window", .int(Int64(identities.window))),
                                                     ("tries", .int(Int64(identities.tries))),
                                                     ("embeddings", .bool(identities.writeEmbeddings))])))
        }
        if let cuts {
            analyzers.append(("cuts", .object([("threshold", .fixed(cuts.threshold, digits: 2)),
                                               ("min_shot", .int(Int64(cuts.minShot)))])))
        }

        var members: [(String, JSON)] = [
            ("type", .string("stream")),
            ("schema", .int(Int64(recordSchemaVersion))),
            ("tool", .string(tool)),
            ("source", .string(s.source)),
            ("container", .string(s.container)),
            ("stream_index", .int(Int64(s.streamIndex))),
            ("codec", .string(s.codec)),
            ("width", .int(Int64(s.displayWidth))),
            ("height", .int(Int64(s.displayHeight))),
            ("coded_width", .int(Int64(s.codedWidth))),
            ("coded_height", .int(Int64(s.codedHeight))),
            ("rotation", .int(Int64(s.rotation))),
            ("time_base", rational(s.timeBase)),
            ("frame_rate", rational(s.frameRate)),
            ("duration", s.duration.map { .fixed($0, digits: Precision.seconds) } ?? .null),
            ("start_time", s.containerStartTime.map { .fixed($0, digits: Precision.seconds) } ?? .null),
            ("stream_start_time", s.streamStartTime.map { .fixed($0, digits: Precision.seconds) } ?? .null),
            ("variable_frame_rate", .bool(s.variableFrameRate)),
        ]
        if let start { members.append(("start", .fixed(start, digits: Precision.seconds))) }
        if let warmup { members.append(("warmup", .fixed(warmup, digits: Precision.seconds))) }
        if let duration { members.append(("max_duration", .fixed(duration, digits: Precision.seconds))) }
        if let cameraName { members.append(("camera_name", .string(cameraName))) }
        if let camera {
            members.append(("camera", .object([("card", .string(camera.card)), ("driver", .string(camera.driver)),
                                               ("bus", .string(camera.bus)), ("mirror", .bool(camera.mirror)),
                                               ("drop_late_frames", .bool(camera.dropLateFrames))])))
        }
        members.append(("analyzers", .object(analyzers)))
        return .object(members)
    }
}
