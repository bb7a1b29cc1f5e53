#ifndef SIGHTLINE_CVISION_H
#define SIGHTLINE_CVISION_H
// A small C API over OpenCV (face cascades, DNN face detectors). No C++ type or exception
// crosses it: every call catches and reports errors through a message buffer.
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An 8-bit single-channel image owned by the caller (typically a decoder's luma plane).
typedef struct {
    const uint8_t *data;
    int width;
    int height;
    int stride;   ///< bytes per row, >= width
} slv_gray_image;

/// Limits OpenCV's own thread pool; 1 when the caller parallelizes frames itself (OpenBLAS, which
/// OpenCV links, then runs on one thread too: slv_stop_blas_threads).
void slv_set_num_threads(int threads);

/// OpenBLAS (linked by OpenCV) runs on its caller's thread, and its server threads stop.
void slv_stop_blas_threads(void);

// MARK: Face cascades

typedef struct slv_cascade slv_cascade;

typedef struct {
    float x, y, w, h;   ///< in the coordinates of the rotated, full-size image
    int neighbors;      ///< raw detections merged into this one (the cascade's score)
} slv_face;

typedef struct {
    int detect_width;   ///< the image is downscaled to this width before detection (0: no scaling)
    int min_face;       ///< smallest face searched for, in full-size pixels
    int max_face;       ///< largest face searched for, in full-size pixels (0: no limit)
    int rotation;       ///< degrees clockwise (0/90/180/270) to rotate before detection
    double scale_factor;
    int min_neighbors;
    /// optional region of the displayed (rotated) full-size frame to search (w <= 0: whole frame)
    int roi_x, roi_y, roi_w, roi_h;
} slv_cascade_options;

/// Loads a cascade XML file. NULL on failure, with the reason in `error`.
slv_cascade *slv_cascade_create(const char *path, char *error, size_t error_size);
void slv_cascade_destroy(slv_cascade *cascade);
/// Detects faces. Returns the number found (at most `capacity` written), or -1 with `error` set.
int slv_cascade_detect(slv_cascade *cascade, slv_gray_image image, const slv_cascade_options *options,
                       slv_face *faces, int capacity, char *error, size_t error_size);

/// Eyes and smile found inside a face box (displayed-frame pixels). `left` is the image's left.
typedef struct {
    int left_eye, right_eye, smile;     ///< 1 when found
    float left_x, left_y, right_x, right_y, mouth_x, mouth_y;
} slv_face_parts;

/// Searches a face box with an eye cascade and (optionally) a smile cascade. Returns 1 when the
/// face was searched, 0 when it is too small to search, -1 with `error` set on failure.
int slv_face_parts_detect(slv_cascade *eyes, slv_cascade *smile, slv_gray_image image, int rotation,
                          float x, float y, float w, float h, slv_face_parts *parts,
                          char *error, size_t error_size);

// MARK: DNN face detectors: input images, and ONNX networks run by OpenCV's dnn module

/// A YUV picture: the luma plane and, when the format has them, the two chroma planes.
typedef struct {
    slv_gray_image luma;
    const uint8_t *cb;      ///< NULL when only luma is available
    const uint8_t *cr;
    int chroma_width;
    int chroma_height;
    int chroma_stride;      ///< bytes per chroma row
    int chroma_step;        ///< bytes between neighbouring chroma samples: 1 planar, 2 interleaved (NV12/NV21)
    int matrix;             ///< 709 for BT.709, anything else is taken as BT.601
    int full_range;         ///< 1: 0..255 (JPEG range); 0: 16..235 (video range)
} slv_yuv_image;

/// How the network's input image is laid out: channel order and the affine map of 0..255 values.
typedef struct {
    int width, height;  ///< the network input, in pixels (the displayed frame is scaled to it)
    int rotation;       ///< degrees clockwise (0/90/180/270) to turn the picture for display
    int rgb;            ///< 1: R, G, B planes; 0: B, G, R planes
    float scale;        ///< each 0..255 value v becomes v * scale + offset
    float offset;
    int use_color;      ///< 1: colour from the chroma planes when present; 0: luma in all 3 channels
} slv_dnn_input_options;

/// Reused buffers that turn a frame's planes into a network input (1 x 3 x H x W floats).
typedef struct slv_dnn_input slv_dnn_input;

slv_dnn_input *slv_dnn_input_create(void);
void slv_dnn_input_destroy(slv_dnn_input *input);
/// Makes the input image once from the planes: the planes are scaled to the small input size
/// first, so colour is converted only at that size (never a full-size colour frame). Returns the
/// 1 x 3 x height x width floats (valid until the next call), or NULL with `error` set.
const float *slv_dnn_input_make(slv_dnn_input *input, const slv_yuv_image *image, const slv_dnn_input_options *options,
                                char *error, size_t error_size);

/// Shot-cut detection's image of a frame: the picture scaled bilinearly to width x height (coded
/// orientation), converted to 8-bit BGR and then to OpenCV's HSV (hue 0..179), written
/// interleaved (H, S, V) into `hsv` (width * height * 3 bytes). 0, or -1 with `error` set.
int slv_shot_hsv(const slv_yuv_image *image, int width, int height, uint8_t *hsv, char *error, size_t error_size);

/// A face aligned for an embedding network: the similarity transform that maps the five
/// landmarks `points` (x, y pairs in coded-picture pixels: image-left eye, image-right eye, nose,
/// image-left and image-right mouth corners) onto the ArcFace template scaled to size x size,
/// bilinear warp of the planes, written as 3 planes R, G, B of size x size bytes into `rgb` (as
/// an 8-bit aligned image would be). 0, or -1 with `error` set.
int slv_align_face(const slv_yuv_image *image, const float points[10], int size, uint8_t *rgb, char *error, size_t error_size);

/// An output of a network run: float values in row-major order, valid until the next run.
typedef struct {
    const float *data;
    size_t count;
    int rank;
    int dims[6];
} slv_tensor;

/// An ONNX network run by OpenCV's dnn module (one thread; not thread-safe: one per worker).
typedef struct slv_cv_net slv_cv_net;

/// Loads an ONNX file and checks that it has the `outputs` named. NULL on failure, with the
/// reason in `error` (unreadable, not ONNX OpenCV can load, an output missing).
slv_cv_net *slv_cv_net_create(const char *path, const char *const *outputs, int output_count,
                              char *error, size_t error_size);
void slv_cv_net_destroy(slv_cv_net *net);
/// Runs the network on a 1 x 3 x height x width input; fills `results` (one per output asked for
/// at creation, in that order). 0 on success, -1 with `error` set.
int slv_cv_net_run(slv_cv_net *net, const float *input, int width, int height, slv_tensor *results,
                   char *error, size_t error_size);

/// OpenCV's version ("4.6.0").
const char *slv_opencv_version(void);

/// Indices of the boxes (x, y, w, h quadruples) kept by OpenCV's non-maximum suppression, best
/// score first. Returns how many were written into `keep` (at most `count`), or -1 on failure.
int slv_nms_boxes(const float *boxes, const float *scores, int count, float score_threshold, float nms_iou,
                  int *keep, char *error, size_t error_size);

// MARK: Appearance patches (following an object between full detections)

typedef struct slv_patch slv_patch;

/// The picture under the box (x, y, w, h), sampled so its longer side is `size` pixels. NULL when
/// the box lies outside the picture or the patch is too flat to follow.
slv_patch *slv_patch_create(slv_gray_image image, float x, float y, float w, float h, int size);
void slv_patch_destroy(slv_patch *patch);
/// Looks for the patch's box near the box of its size at (x, y), within `margin` box sizes on
/// every side. Returns the best normalized correlation (-1..1), with the found box's top-left in
/// `found_x`, `found_y`; -2 when the region could not be searched. Reads `patch` only: several
/// threads may search with one patch at once.
float slv_patch_find(const slv_patch *patch, slv_gray_image image, float x, float y, float margin,
                     float *found_x, float *found_y);

// MARK: Drawing on a writable YUV 4:2:0 picture (coded orientation)

typedef struct {
    uint8_t *y, *u, *v;
    int y_stride, u_stride, v_stride;
    int width, height;      ///< luma size; chroma planes are half in each direction
} slv_yuv420;

/// A rectangle outline of the given colour (Y, U, V) and luma thickness.
void slv_draw_rect(slv_yuv420 picture, int x, int y, int w, int h, const uint8_t color[3], int thickness);
/// A closed polygon outline; `points` holds x0,y0,x1,y1,…
void slv_draw_polygon(slv_yuv420 picture, const int *points, int count, const uint8_t color[3], int thickness);
/// Blurs (a strong Gaussian) or pixelates (blocks of `block` px) a rectangle, in all planes.
void slv_blur_rect(slv_yuv420 picture, int x, int y, int w, int h);
void slv_pixelate_rect(slv_yuv420 picture, int x, int y, int w, int h, int block);
/// Copies `src` into `dst` (same size), turned left to right when `mirror` is non-zero.
void slv_copy_yuv420(slv_yuv420 src, slv_yuv420 dst, int mirror);

/// Filled dots of `radius` luma pixels at x0,y0,x1,y1,… (coded-picture pixels).
void slv_draw_dots(slv_yuv420 picture, const int *points, int count, int radius, const uint8_t color[3]);

/// Width and height of the background box `slv_draw_text` fills for `text` at `scale`.
void slv_text_box_size(const char *text, double scale, int *width, int *height);
/// Text on a filled background box whose top-left corner is (x, y) in displayed-frame pixels,
/// upright as displayed: the picture is the coded one, which players turn `rotation` degrees
/// (0/90/180/270) clockwise. The text is drawn in luma only (chroma takes the background colour).
void slv_draw_text(slv_yuv420 picture, const char *text, int x, int y, double scale,
                   const uint8_t color[3], const uint8_t background[3], int rotation);

/// An image with alpha as four full-resolution 8-bit planes (Y, U, V, A; 4:4:4), in display orientation.
typedef struct {
    const uint8_t *y, *u, *v, *a;
    int stride;     ///< bytes per row of every plane
    int width, height;
} slv_yuva444;

/// Scales `image` into the displayed-frame rectangle (x, y, w, h) and blends it over the picture
/// by its alpha; the picture is the coded one, turned `rotation` degrees clockwise for display.
void slv_draw_image(slv_yuv420 picture, const slv_yuva444 *image, int x, int y, int w, int h, int rotation);

/// Copies the rectangle (x, y, w, h) of a packed RGB24 image into `dst` (`dst_stride` bytes per
/// row), turned `rotation` degrees clockwise: a coded-picture region becomes a displayed one.
/// `dst` holds w x h pixels, or h x w for 90 and 270. Returns 0, or -1 when the rectangle does
/// not lie inside the source.
int slv_rotate_rgb(const uint8_t *src, int src_width, int src_height, int src_stride, int x, int y, int w, int h,
                   int rotation, uint8_t *dst, int dst_stride);

#ifdef __cplusplus
}
#endif
#endif
