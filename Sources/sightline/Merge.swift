import ArgumentParser
import Foundation
import Sightline

struct Merge: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Merge the shard outputs of a plan into one JSON Lines file per input, as if one run had made it.",
        discussion: """
            The merged file has one stream record, the frame records of all shards in order (as \
            written, with track ids joined across shard boundaries and renumbered by first \
            appearance: faces by box overlap on the warm-up frames both shards saw, codes by \
            payload), the track records and the summary computed again. It is written under a \
            temporary name and renamed when complete. Refused, with one line naming the file: a \
            shard missing (exit 66); a shard truncated or interrupted, of another file, covering \
            another span than planned, overlapping or leaving a gap, or analyzed with other options \
            (exit 65).
            """
    )

    @Argument(help: "The plan written by sightline plan.")
    var plan: String

    @Argument(help: "Shard outputs (default: the output names in the plan).")
    var shardOutputs: [String] = []

    @Option(name: .customLong("input"), help: "Merge only this input of the plan (default: every input).")
    var only: String?

    @Flag(name: .shortAndLong, help: "No line per merged file on standard error.")
    var quiet = false

    func run() throws {
        let shards = try Shard.readPlan(plan)
        // Shard outputs given by name are paired with the plan's shards by their stream record.
        var paths: [String: String] = [:]
        if shardOutputs.isEmpty {
            for shard in shards { paths[shard.output] = shard.output }
        } else {
            for path in shardOutputs {
                let planned = try Shard.written(at: path, in: shards, plan: plan)
                if let earlier = paths[planned.output] {
                    throw SightlineError.shardRejected(path: path, reason: "overlaps \(earlier): both are shard \(planned.number) of \(planned.input)")
                }
                paths[planned.output] = path
            }
        }
        var inputs: [String] = []
        for shard in shards where !inputs.contains(shard.input) { inputs.append(shard.input) }
        if let only {
            guard inputs.contains(only) else { throw ValidationError("\(only) is not an input of \(plan).") }
            inputs = [only]
        }
        for input in inputs {
            let own = shards.filter { $0.input == input }
            let summary = try ShardMerger().merge(input: input, shards: own, paths: paths, output: own[0].merged)
            if !quiet {
                FileHandle.standardError.write(Data("\(own[0].merged): \(own.count) shards, \(summary.frames) frames, \(summary.tracks) tracks\n".utf8))
            }
        }
    }
}
