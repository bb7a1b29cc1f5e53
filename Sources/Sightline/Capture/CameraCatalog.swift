import Foundation
import SightlineFrames

/// What a camera can deliver, as `sightline devices` lists it.
public struct CameraDescription: Sendable {
    public struct Format: Sendable {
        public var fourcc: String
        public var description: String
        /// Frame sizes, each with its frame rates.
        public var sizes: [(size: FrameSize, fps: [Double])]
    }
    public var path: String
    public var card: String
    public var driver: String
    public var bus: String
    /// The camera's own formats.
    public var formats: [Format]
    /// Formats libv4l2 converts the camera's into (Sightline reads YU12 = planar YUV 4:2:0).
    public var convertedFormats: [String]
}

/// Finds V4L2 capture devices and asks each what it can do.
public enum CameraCatalog {
    /// The video device nodes under `directory` (/dev/video0, /dev/video1, … in number order).
    public static func devicePaths(in directory: String = "/dev") -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name -> (Int, String)? in
            guard name.hasPrefix("video"), let n = Int(name.dropFirst(5)) else { return nil }
            return (n, directory + "/" + name)
        }.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// Opens `path` and lists its formats, sizes and frame rates. Throws for a device that cannot
    /// be opened or is not a capture device (`noVideoStream`).
    public static func describe(_ path: String) throws -> CameraDescription {
        let device = try V4L2Device(path: path)
        let caps = device.capability
        let all = device.formats()
        let formats = all.filter { !$0.emulated }.map { format in
            CameraDescription.Format(fourcc: format.fourcc.description, description: format.description,
                                     sizes: device.frameSizes(format.fourcc).map { ($0, device.frameRates(format.fourcc, $0)) })
        }
        return CameraDescription(path: path, card: caps.card, driver: caps.driver, bus: caps.bus, formats: formats,
                                 convertedFormats: all.filter(\.emulated).map(\.fourcc.description))
    }
}

extension CameraDescription {
    /// The camera as `sightline devices` prints it: formats, sizes, frame rates.
    public var text: String {
        var lines = ["\(path): \(card) (driver \(driver), \(bus))"]
        for format in formats {
            lines.append("  \(format.fourcc)  \(format.description)")
            for (size, rates) in format.sizes {
                lines.append("    \(size)" + (rates.isEmpty ? "" : "  " + rates.map { String(format: "%g", $0) }.joined(separator: ", ") + " fps"))
            }
        }
        if !convertedFormats.isEmpty {
            lines.append("  also converted by libv4l2 to: " + convertedFormats.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }
}
