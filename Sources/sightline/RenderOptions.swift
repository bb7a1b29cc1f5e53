import ArgumentParser
import Sightline

/// How overlays are drawn and encoded: shared by every command that writes a video.
struct RenderOptions: ParsableArguments {
    @Option(help: "How the video is drawn: boxes (labelled boxes and code outlines), blur or pixelate (anonymized).")
    var style: OverlayStyle = .boxes

    @Option(help: "What blur/pixelate hide: faces, or faces,codes.")
    var anonymize: String = "faces"

    @Option(help: "x264 quality of the written video (0–51, lower is better).")
    var crf: Int = 23

    @Option(help: "x264 preset of the written video (ultrafast … veryslow).")
    var preset: String = "veryfast"

    func validate() throws {
        if !(0...51).contains(crf) { throw ValidationError("--crf must be between 0 and 51, not \(crf).") }
        let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]
        if !presets.contains(preset) { throw ValidationError("--preset must be one of \(presets.joined(separator: ", ")), not '\(preset)'.") }
        let hidden = Set(anonymize.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        if !hidden.isSubset(of: ["faces", "codes"]) || !hidden.contains("faces") {
            throw ValidationError("--anonymize must be faces or faces,codes, not '\(anonymize)'.")
        }
    }

    var anonymizeCodes: Bool { anonymize.contains("codes") }
    var encoder: EncoderOptions { EncoderOptions(crf: crf, preset: preset) }
}

extension OverlayStyle: ExpressibleByArgument {}
