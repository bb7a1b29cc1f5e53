/// Which library runs the ONNX face detectors.
public enum DNNRuntime: String, CaseIterable, Sendable {
    /// OpenVINO's CPU runtime (C API), installed by Scripts/install-deps.sh: the default, about
    /// twice as fast per frame as OpenCV 4.6 on the same models (docs/models.md).
    case openvino
    /// OpenCV's dnn module (Debian's libopencv-dnn): for machines without OpenVINO.
    case opencv
}
