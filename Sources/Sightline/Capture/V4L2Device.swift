import CV4L2
import Foundation
import SightlineFrames

/// A V4L2 pixel format code ("YUYV", "MJPG", …).
public struct FourCC: Hashable, Sendable, CustomStringConvertible {
    public let code: UInt32
    public init(_ code: UInt32) { self.code = code }
    public var description: String {
        String(decoding: (0..<4).map { UInt8(truncatingIfNeeded: code >> (8 * $0)) }, as: UTF8.self)
            .trimmingCharacters(in: .whitespaces)
    }
}

/// One open V4L2 device, reached through libv4l2 (which converts the camera's own formats, such
/// as YUYV or MJPEG, into the planar YUV 4:2:0 Sightline asks for). The thin layer over the
/// ioctls: every failure becomes a `SightlineError` naming the device and the cause.
/// Used by one thread at a time.
package final class V4L2Device {
    package let path: String
    /// What the driver says the device is (VIDIOC_QUERYCAP, asked once at open).
    package let capability: Capability
    private let fd: Int32
    private var mappings: [(address: UnsafeMutableRawPointer, length: Int)] = []

    /// Opens `path` and checks that it is a streaming video capture device.
    package init(path: String) throws {
        self.path = path
        Self.silenceLibrary
        let fd = Self.quietly { slv_v4l2_open(path, O_RDWR | O_CLOEXEC) }
        guard fd >= 0 else { throw Self.openError(path: path, errno: slv_errno()) }
        var cap = v4l2_capability()
        guard withUnsafeMutableBytes(of: &cap, { slv_v4l2_ioctl(fd, SLV_VIDIOC_QUERYCAP, $0.baseAddress) }) == 0 else {
            let code = slv_errno()
            v4l2_close(fd)
            // A node that does not know VIDIOC_QUERYCAP (ENOTTY) is no video device at all.
            if code == ENOTTY || code == EINVAL { throw SightlineError.noVideoStream(path: path, reason: "not a V4L2 device") }
            throw Self.error(path: path, errno: code, action: "query the device")
        }
        self.fd = fd
        let device = cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? cap.device_caps : cap.capabilities
        capability = Capability(driver: Self.string(cap.driver), card: Self.string(cap.card), bus: Self.string(cap.bus_info),
                                deviceCaps: device)
        // From here on, deinit closes the device if init throws.
        guard capability.isCapture else {
            throw SightlineError.noVideoStream(path: path, reason: "not a video capture device (\(capability.card), driver \(capability.driver))")
        }
    }

    deinit {
        stopStreaming()
        v4l2_close(fd)
    }

    // MARK: - Queries

    package struct Capability {
        package var driver: String
        package var card: String
        package var bus: String
        package var deviceCaps: UInt32
        package var isCapture: Bool { deviceCaps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 }
        package var canStream: Bool { deviceCaps & UInt32(V4L2_CAP_STREAMING) != 0 }
    }

    /// The capture formats, with `emulated` true for those libv4l2 converts to.
    package func formats() -> [(fourcc: FourCC, description: String, emulated: Bool)] {
        var result: [(FourCC, String, Bool)] = []
        var desc = v4l2_fmtdesc()
        desc.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        while call(SLV_VIDIOC_ENUM_FMT, &desc) == 0 {
            result.append((FourCC(desc.pixelformat), Self.string(desc.description), desc.flags & UInt32(V4L2_FMT_FLAG_EMULATED) != 0))
            desc.index += 1
        }
        return result
    }

    /// Frame sizes of a format: discrete ones, or the smallest and largest of a range.
    package func frameSizes(_ format: FourCC) -> [FrameSize] {
        var result: [FrameSize] = []
        var size = v4l2_frmsizeenum()
        size.pixel_format = format.code
        while call(SLV_VIDIOC_ENUM_FRAMESIZES, &size) == 0 {
            if size.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                result.append(FrameSize(width: Int(size.discrete.width), height: Int(size.discrete.height)))
            } else {
                result.append(FrameSize(width: Int(size.stepwise.min_width), height: Int(size.stepwise.min_height)))
                result.append(FrameSize(width: Int(size.stepwise.max_width), height: Int(size.stepwise.max_height)))
                break
            }
            size.index += 1
        }
        return result
    }

    /// Frame rates (frames per second) of a format at a size; for a range, its ends.
    package func frameRates(_ format: FourCC, _ size: FrameSize) -> [Double] {
        var result: [Double] = []
        var interval = v4l2_frmivalenum()
        interval.pixel_format = format.code
        interval.width = UInt32(size.width)
        interval.height = UInt32(size.height)
        while call(SLV_VIDIOC_ENUM_FRAMEINTERVALS, &interval) == 0 {
            func fps(_ f: v4l2_fract) -> Double? { f.numerator > 0 ? Double(f.denominator) / Double(f.numerator) : nil }
            if interval.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
                if let r = fps(interval.discrete) { result.append(r) }
            } else {
                result += [fps(interval.stepwise.max), fps(interval.stepwise.min)].compactMap { $0 }
                break
            }
            interval.index += 1
        }
        return result
    }

    // MARK: - Configuration

    /// Asks for planar YUV 4:2:0 at `size` (nil: the current size). The driver may answer with
    /// another size; the caller checks. Returns the format in force.
    package func setYUV420(size: FrameSize?) throws -> (size: FrameSize, bytesPerLine: Int) {
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        try ioctl(SLV_VIDIOC_G_FMT, &format, "read the current format")
        if let size {
            format.fmt.pix.width = UInt32(size.width)
            format.fmt.pix.height = UInt32(size.height)
        }
        format.fmt.pix.pixelformat = SLV_PIX_FMT_YUV420
        format.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        try ioctl(SLV_VIDIOC_S_FMT, &format, "set the format")
        guard format.fmt.pix.pixelformat == SLV_PIX_FMT_YUV420 else {
            throw SightlineError.deviceUnsupported(path: path, reason: "libv4l2 cannot deliver YUV 4:2:0 from this device (it gives \(FourCC(format.fmt.pix.pixelformat)))")
        }
        return (FrameSize(width: Int(format.fmt.pix.width), height: Int(format.fmt.pix.height)),
                Int(format.fmt.pix.bytesperline))
    }

    /// Asks for a frame rate; returns the one in force (nil when the driver does not say).
    package func setFrameRate(_ fps: Double?) throws -> Double? {
        var parm = v4l2_streamparm()
        parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        guard call(SLV_VIDIOC_G_PARM, &parm) == 0 else { return nil }
        if let fps, parm.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0 {
            parm.parm.capture.timeperframe = v4l2_fract(numerator: 1000, denominator: UInt32((fps * 1000).rounded()))
            try ioctl(SLV_VIDIOC_S_PARM, &parm, "set the frame rate")
        }
        let t = parm.parm.capture.timeperframe
        return t.numerator > 0 && t.denominator > 0 ? Double(t.denominator) / Double(t.numerator) : nil
    }

    // MARK: - Streaming

    /// Requests `count` mmap buffers, maps them, queues them all and starts streaming.
    /// Asks for `count` capture buffers, maps and queues them (a busy camera fails here); the
    /// frames start with `streamOn`.
    package func prepareStreaming(buffers count: Int) throws {
        var request = v4l2_requestbuffers()
        request.count = UInt32(count)
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        try ioctl(SLV_VIDIOC_REQBUFS, &request, "request capture buffers")
        guard request.count >= 2 else {
            throw SightlineError.deviceUnsupported(path: path, reason: "the driver gives \(request.count) capture buffers; streaming needs 2")
        }
        for index in 0..<request.count {
            var buffer = Self.buffer(index: index)
            try ioctl(SLV_VIDIOC_QUERYBUF, &buffer, "query capture buffer \(index)")
            let length = Int(buffer.length)
            guard let address = v4l2_mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, Int64(buffer.m.offset)),
                  address != MAP_FAILED else {
                throw SightlineError.deviceUnsupported(path: path, reason: "cannot map capture buffer \(index): \(String(cString: strerror(slv_errno())))")
            }
            mappings.append((address, length))
            try ioctl(SLV_VIDIOC_QBUF, &buffer, "queue capture buffer \(index)")
        }
    }

    /// Starts the frames coming.
    package func streamOn() throws {
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        try ioctl(SLV_VIDIOC_STREAMON, &type, "start streaming")
    }

    /// A filled buffer, waiting for one. Give it back with `requeue` once its bytes are copied.
    package struct FilledBuffer {
        package let index: UInt32
        package let bytes: UnsafeRawBufferPointer
        /// The driver's capture time in microseconds (monotonic clock for most drivers).
        package let timestamp: Int64
        /// The driver's frame counter: a gap means frames it had to drop.
        package let sequence: UInt32
        /// The timestamp is from the monotonic clock (not a copy of the application's or unknown).
        package let monotonic: Bool
    }

    /// Waits until a filled buffer is ready; false after `seconds` without one.
    package func waitForFrame(seconds: Double) throws -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return false }
            let ready = poll(&descriptor, 1, Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)))
            if ready > 0 { return true }
            if ready < 0 && slv_errno() != EINTR { throw Self.error(path: path, errno: slv_errno(), action: "wait for a frame") }
        }
    }

    /// The next filled buffer; nil when libv4l2 had one it could not convert (it answers EAGAIN).
    package func dequeue() throws -> FilledBuffer? {
        var buffer = Self.buffer(index: 0)
        let code = call(SLV_VIDIOC_DQBUF, &buffer)
        if code == EAGAIN { return nil }
        guard code == 0 else { throw Self.error(path: path, errno: code, action: "read a frame") }
        let mapping = mappings[Int(buffer.index)]
        let used = min(mapping.length, Int(buffer.bytesused > 0 ? buffer.bytesused : UInt32(mapping.length)))
        return FilledBuffer(index: buffer.index, bytes: UnsafeRawBufferPointer(start: mapping.address, count: used),
                            timestamp: Int64(buffer.timestamp.tv_sec) * 1_000_000 + Int64(buffer.timestamp.tv_usec),
                            sequence: buffer.sequence,
                            monotonic: buffer.flags & UInt32(V4L2_BUF_FLAG_TIMESTAMP_MASK) == UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC))
    }

    package func requeue(_ filled: FilledBuffer) throws {
        var buffer = Self.buffer(index: filled.index)
        try ioctl(SLV_VIDIOC_QBUF, &buffer, "queue a capture buffer")
    }

    /// Stops streaming and unmaps the buffers (nothing happens if not streaming).
    package func stopStreaming() {
        guard !mappings.isEmpty else { return }
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        _ = call(SLV_VIDIOC_STREAMOFF, &type)
        for mapping in mappings { v4l2_munmap(mapping.address, mapping.length) }
        mappings = []
    }

    // MARK: - Helpers

    private static func buffer(index: UInt32) -> v4l2_buffer {
        var buffer = v4l2_buffer()
        buffer.index = index
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        return buffer
    }

    /// One ioctl; a failure becomes the error a user can act on (busy, permission, unsupported).
    private func ioctl<T>(_ request: UInt, _ argument: inout T, _ action: String) throws {
        let code = call(request, &argument)
        guard code == 0 else { throw Self.error(path: path, errno: code, action: action) }
    }

    /// One ioctl: 0, or the errno it failed with (the end of an enumeration is EINVAL).
    private func call<T>(_ request: UInt, _ argument: inout T) -> Int32 {
        let fd = self.fd
        return withUnsafeMutableBytes(of: &argument, { slv_v4l2_ioctl(fd, request, $0.baseAddress) }) == 0 ? 0 : slv_errno()
    }

    private static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    private static let silenceLibrary: Void = slv_v4l2_silence()

    /// Runs `body` with standard error pointed at /dev/null: when a node is no V4L2 device, a
    /// libv4l2 plugin prints its own line at open (past `v4l2_log_file`), and the user should get
    /// one line, ours. Only used before any other thread runs.
    private static func quietly(_ body: () -> Int32) -> Int32 {
        fflush(nil)
        let saved = dup(STDERR_FILENO)
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        guard saved >= 0, null >= 0 else { return body() }
        dup2(null, STDERR_FILENO)
        close(null)
        let result = body()
        let code = slv_errno()
        fflush(nil)
        dup2(saved, STDERR_FILENO)
        close(saved)
        errno = code
        return result
    }

    package static func openError(path: String, errno code: Int32) -> SightlineError {
        let reason = String(cString: strerror(code))
        switch code {
        case ENOENT, ENODEV, ENXIO: return .inputUnreadable(path: path, reason: "no such camera device (\(reason))")
        case ENOTTY, EINVAL, EISDIR: return .noVideoStream(path: path, reason: "not a V4L2 device (\(reason))")
        default: return error(path: path, errno: code, action: "open the device")
        }
    }

    package static func error(path: String, errno code: Int32, action: String) -> SightlineError {
        let reason = "cannot \(action): \(String(cString: strerror(code)))"
        switch code {
        case EACCES, EPERM: return .permissionDenied(path: path, reason: reason + " (is the user in the video group?)")
        case EBUSY: return .deviceBusy(path: path, reason: reason + " (another program is using the camera)")
        case EINVAL, ENOTTY, ERANGE: return .deviceUnsupported(path: path, reason: reason)
        default: return .inputUnreadable(path: path, reason: reason)
        }
    }
}

