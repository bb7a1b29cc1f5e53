import ArgumentParser
import Sightline

/// What overlays look like: shared by every command that draws them (videos and stills).
struct OverlayOptions: ParsableArguments {
    @Option(help: ArgumentHelp("""
        How observations are drawn: boxes (labelled face boxes with landmark dots, code outlines \
        with the payload), blur or pixelate (faces made unrecognizable), or mask:IMAGE (the image, \
        a PNG with alpha for instance, scaled into each face box and blended by its alpha).
        """, valueName: "boxes|blur|pixelate|mask:IMAGE"))
    var style: OverlayStyle = .boxes

    @Option(help: "What blur, pixelate and mask cover: faces, or faces,codes.")
    var anonymize: String = "faces"

    @Flag(help: "Draw each frame's time (hours:minutes:seconds.milliseconds) in the bottom right corner.")
    var timestamp = false

    func validate() throws {
        let hidden = Set(anonymize.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        if !hidden.isSubset(of: ["faces", "codes"]) || !hidden.contains("faces") {
            throw ValidationError("--anonymize must be faces or faces,codes, not '\(anonymize)'.")
        }
    }

    var anonymizeCodes: Bool { anonymize.contains("codes") }

    /// The painter, with a mask image loaded (a missing or broken image fails here, before any output).
    func painter() throws -> OverlayPainter {
        try OverlayPainter(style: style, anonymizeCodes: anonymizeCodes, timestamp: timestamp)
    }
}

/// How overlays are drawn and encoded: shared by every command that draws them into a video.
struct RenderOptions: ParsableArguments {
    @OptionGroup var overlay: OverlayOptions

    @OptionGroup var encoding: EncoderArguments

    var encoder: EncoderOptions { encoding.options() }
    func painter() throws -> OverlayPainter { try overlay.painter() }
}

/// How a written video is encoded: shared by every command that writes one.
struct EncoderArguments: ParsableArguments {
    @Option(help: """
        x264 quality of the written video (0–51, lower is better; default: 23, and 22 for \
        anonymize, whose 5-frame rate-control lookahead needs one step more for the same size and quality).
        """)
    var crf: Int?

    @Option(help: "x264 preset of the written video (ultrafast … veryslow).")
    var preset: String = "veryfast"

    func validate() throws {
        if let crf, !(0...51).contains(crf) { throw ValidationError("--crf must be between 0 and 51, not \(crf).") }
        let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]
        if !presets.contains(preset) { throw ValidationError("--preset must be one of \(presets.joined(separator: ", ")), not '\(preset)'.") }
    }

    /// The encoder settings; `defaultCRF`, `threads` and `lookahead` are the command's.
    func options(defaultCRF: Int = 23, threads: Int = 0, lookahead: Int? = nil) -> EncoderOptions {
        EncoderOptions(crf: crf ?? defaultCRF, preset: preset, threads: threads, lookahead: lookahead)
    }
}

extension OverlayStyle: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
    public static var allValueStrings: [String] { ["boxes", "blur", "pixelate", "mask:IMAGE"] }
}
