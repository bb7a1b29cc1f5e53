import ArgumentParser
import Foundation
import Sightline

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the cameras (V4L2 capture devices) with their formats, frame sizes and frame rates.",
        discussion: """
            Looks at /dev/video* (or the --device given). Nodes that are not capture devices (a \
            camera's metadata node, for instance) are left out. No camera is not an error: the \
            command says so and exits 0.
            """
    )

    @Option(help: "Describe only this device (a path such as /dev/video2).")
    var device: String?

    @Flag(help: "One JSON object per camera instead of text.")
    var json = false

    func run() throws {
        let paths = device.map { [$0] } ?? CameraCatalog.devicePaths()
        var cameras: [CameraDescription] = []
        var skipped = 0
        for path in paths {
            do {
                cameras.append(try CameraCatalog.describe(path))
            } catch let error as SightlineError {
                if device != nil { throw error }
                if case .noVideoStream = error { skipped += 1; continue }
                FileHandle.standardError.write(Data("sightline: \(error)\n".utf8))
            }
        }
        if cameras.isEmpty {
            let others = skipped > 0 ? " (\(skipped) video device node\(skipped == 1 ? " is" : "s are") not for capture)" : ""
            print("No cameras found: no V4L2 capture device in /dev/video*\(others).")
            return
        }
        for camera in cameras {
            print(json ? camera.json.serialized() : camera.text)
        }
    }
}
