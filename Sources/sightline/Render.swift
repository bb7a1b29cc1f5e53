import ArgumentParser
import Foundation
import Sightline

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw the overlays of saved records into the video again, without detecting anything.",
        discussion: """
            RECORDS must be the output of `sightline analyze` on INPUT: its stream record must name \
            the same stream (index, codec, coded size, time base) and its frame records must have the \
            pts of the decoded frames, one for one, in order; otherwise nothing is drawn and the exit \
            code is 65. A run made with --start/--duration renders that same span. The input's audio \
            is copied as with analyze --render (whole-file runs only).
            """
    )

    @Argument(help: "The video the records were made from.")
    var input: String

    @Argument(help: "The JSON Lines records of `sightline analyze` on that video.")
    var records: String

    @Option(name: .shortAndLong, help: "Where to write the video with overlays (fragmented MP4, H.264).")
    var output: String

    @OptionGroup(title: "Rendering") var rendering: RenderOptions

    @Option(help: ArgumentHelp("Also write the best picture of every track as DIR/face-ID.png or DIR/code-ID.png.", valueName: "DIR"))
    var thumbnails: String?

    @OptionGroup var progress: ProgressOptions

    @OptionGroup(title: "Input") var decoding: InputOptions

    func run() throws {
        VideoFileSource.showLibraryWarnings(decoding.verbose)
        let painter = try rendering.painter()
        let replay = try RecordReplay(records: records, input: input)
        let (source, start) = try decoding.open(input, replaying: replay, keepAudio: true)
        let run = try Run(RunConfiguration(source: source, analysis: .replay(replay)))
        let thumbnailCollector = try thumbnails.map { try ThumbnailCollector(directory: $0) }
        let renderer = OverlayRenderer(painter: painter, writer: try MP4Writer(path: output, source: source, options: rendering.encoder),
                                       audioFrom: source)
        let sinks: [FrameSink?] = [ProgressLine(quiet: progress.quiet, totalFrames: ProgressLine.expectedFrames(source.info, start: start, duration: replay.duration)),
                                   renderer, thumbnailCollector]

        let summary: SummaryRecord
        do {
            summary = try run.runStoppable(into: sinks.compactMap { $0 })
        } catch let error as SightlineError {
            // Overlays from records of another video are worthless: leave nothing behind.
            if case .recordsMismatch = error {
                try? FileManager.default.removeItem(atPath: output)
                thumbnailCollector?.discard()
            }
            throw error
        }
        if summary.interrupted { throw ExitCode(130) }
        if !summary.damage.isEmpty {
            throw SightlineError.inputDamaged(path: input, reason: "\(summary.damage) (\(summary.frames) frames rendered)")
        }
    }
}
