// V4L2 through libv4l2: the ioctl request numbers are macros and v4l2_open/v4l2_ioctl are
// variadic, so Swift sees them through these constants and wrappers.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <libv4l2.h>
#include <linux/videodev2.h>
#include <sys/mman.h>

static const unsigned long SLV_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
static const unsigned long SLV_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
static const unsigned long SLV_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
static const unsigned long SLV_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
static const unsigned long SLV_VIDIOC_G_FMT = VIDIOC_G_FMT;
static const unsigned long SLV_VIDIOC_S_FMT = VIDIOC_S_FMT;
static const unsigned long SLV_VIDIOC_G_PARM = VIDIOC_G_PARM;
static const unsigned long SLV_VIDIOC_S_PARM = VIDIOC_S_PARM;
static const unsigned long SLV_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
static const unsigned long SLV_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
static const unsigned long SLV_VIDIOC_QBUF = VIDIOC_QBUF;
static const unsigned long SLV_VIDIOC_DQBUF = VIDIOC_DQBUF;
static const unsigned long SLV_VIDIOC_STREAMON = VIDIOC_STREAMON;
static const unsigned long SLV_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;

static const unsigned int SLV_PIX_FMT_YUV420 = V4L2_PIX_FMT_YUV420;

/// Opens a device through libv4l2 (format conversion on); -1 and errno on failure.
static inline int slv_v4l2_open(const char *path, int flags) { return v4l2_open(path, flags); }

/// One ioctl through libv4l2, retried when a signal interrupts it; -1 and errno on failure.
static inline int slv_v4l2_ioctl(int fd, unsigned long request, void *arg) {
    int r;
    do { r = v4l2_ioctl(fd, request, arg); } while (r == -1 && errno == EINTR);
    return r;
}

static inline int slv_errno(void) { return errno; }

/// Sends libv4l2's own messages (it prints every failed ioctl) to /dev/null: Sightline reports
/// each failure itself, in one line. Note that libv4l2 then also logs each ioctl there.
static inline void slv_v4l2_silence(void) {
    if (!v4l2_log_file) v4l2_log_file = fopen("/dev/null", "w");
}
