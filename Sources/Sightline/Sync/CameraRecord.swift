import SightlineFrames
import SightlineMedia
import SightlineRecords

extension CameraDescription {
    /// The camera as `sightline devices --json` prints it.
    public var json: JSON {
        .object([
            ("device", .string(path)), ("card", .string(card)), ("driver", .string(driver)),
            ("bus", .string(bus)),
            ("formats", .array(formats.map { format in
                .object([("fourcc", .string(format.fourcc)), ("description", .string(format.description)),
                         ("sizes", .array(format.sizes.map { size, rates in
                             .object([("width", .int(Int64(size.width))), ("height", .int(Int64(size.height))),
                                      ("fps", .array(rates.map { .fixed($0, digits: 3) }))])
                         }))])
            })),
            ("converted_formats", .array(convertedFormats.map { .string($0) })),
        ])
    }
}
