// A fake V4L2 camera for tests, preloaded into the process under test (LD_PRELOAD).
//
// libv4l2 and libv4lconvert reach the kernel through libc's syscall() (open, ioctl, mmap, munmap,
// close), so replacing syscall() puts this file where a driver would be: libv4l2's own code —
// format negotiation, conversion from YUYV, buffer mapping — runs unchanged on top of it.
//
// It answers for one device path and behaves like a simple UVC camera: one pixel format (YUYV),
// one frame size, one frame interval, mmap streaming with a driver-side queue. Frames "arrive" at
// the frame rate whether or not a buffer is queued; an arrival with no free buffer is dropped and
// its sequence number skipped, as a real driver does.
//
// Environment:
//   SLV_FAKE_DEVICE  path the fake answers for (required)
//   SLV_FAKE_FRAME   raw YUYV picture (width*height*2 bytes) shown in every frame (required)
//   SLV_FAKE_SIZE    WIDTHxHEIGHT of that picture (default 1280x720)
//   SLV_FAKE_FPS     frame rate (default 30)
//   SLV_FAKE_TRACE   print each ioctl on stderr
//   SLV_FAKE_FAIL    make one step fail: open:EACCES, open:EBUSY, S_FMT:EINVAL, S_FMT:EBUSY,
//                    STREAMON:EBUSY, DQBUF:ENODEV@N (the camera disappears after N frames),
//                    DQBUF:EAGAIN@N (from frame N on, every frame is one libv4l2 cannot convert)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_BUFFERS 8

typedef long (*syscall_fn)(long, ...);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int fake_fd = -1;
static int width = 1280, height = 720, fps = 30;
static unsigned char *picture;
static size_t frame_bytes;

static struct {
    void *memory;
    size_t length;
    int queued, filled;
    struct v4l2_buffer filled_info;
} buffers[MAX_BUFFERS];
static int buffer_count;
static int streaming;
static uint64_t stream_start_ns, next_arrival;   // arrivals counted from STREAMON
static uint32_t sequence;
static int fill_order[MAX_BUFFERS], filled_head, filled_count;

static long real_syscall(long n, long a, long b, long c, long d, long e, long f) {
    static syscall_fn next;
    if (!next) next = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
    return next(n, a, b, c, d, e, f);
}

static long fail(int error) {
    errno = error;
    return -1;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/// The errno SLV_FAKE_FAIL asks `step` to fail with, or 0. For DQBUF:ERR@N, only from frame N on.
static int injected(const char *step) {
    const char *spec = getenv("SLV_FAKE_FAIL");
    size_t n = strlen(step);
    if (!spec || strncmp(spec, step, n) != 0 || spec[n] != ':') return 0;
    const char *name = spec + n + 1;
    const char *at = strchr(name, '@');
    if (at && sequence < (uint32_t)atoi(at + 1)) return 0;
    size_t len = at ? (size_t)(at - name) : strlen(name);
    static const struct { const char *name; int value; } names[] = {
        {"EACCES", EACCES}, {"EBUSY", EBUSY}, {"EINVAL", EINVAL}, {"ENODEV", ENODEV}, {"EIO", EIO}, {"EAGAIN", EAGAIN}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].name) == len && strncmp(names[i].name, name, len) == 0) return names[i].value;
    return EIO;
}

static int load_configuration(void) {
    const char *size = getenv("SLV_FAKE_SIZE");
    if (size && sscanf(size, "%dx%d", &width, &height) != 2) return -1;
    const char *rate = getenv("SLV_FAKE_FPS");
    if (rate) fps = atoi(rate) > 0 ? atoi(rate) : 30;
    frame_bytes = (size_t)width * height * 2;
    const char *path = getenv("SLV_FAKE_FRAME");
    if (!path) return -1;
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    free(picture);
    picture = malloc(frame_bytes);
    size_t got = picture ? fread(picture, 1, frame_bytes, f) : 0;
    fclose(f);
    return got == frame_bytes ? 0 : -1;
}

static void fill_format(struct v4l2_format *f) {
    memset(&f->fmt.pix, 0, sizeof f->fmt.pix);
    f->fmt.pix.width = width;
    f->fmt.pix.height = height;
    f->fmt.pix.pixelformat = V4L2_PIX_FMT_YUYV;
    f->fmt.pix.field = V4L2_FIELD_NONE;
    f->fmt.pix.bytesperline = width * 2;
    f->fmt.pix.sizeimage = frame_bytes;
    f->fmt.pix.colorspace = V4L2_COLORSPACE_SRGB;
}

static void free_buffers(void) {
    for (int i = 0; i < buffer_count; i++) real_syscall(SYS_munmap, (long)buffers[i].memory, buffers[i].length, 0, 0, 0, 0);
    memset(buffers, 0, sizeof buffers);
    buffer_count = 0;
    filled_head = filled_count = 0;
}

/// Delivers every frame that has arrived by `now` into a queued buffer, or drops it.
static void deliver_arrivals(uint64_t now) {
    uint64_t period = 1000000000ull / fps;
    while (stream_start_ns + next_arrival * period <= now) {
        uint64_t at = stream_start_ns + next_arrival * period;
        next_arrival++;
        uint32_t seq = sequence++;
        int free_index = -1;
        for (int i = 0; i < buffer_count; i++)
            if (buffers[i].queued && !buffers[i].filled) { free_index = i; break; }
        if (free_index < 0) continue;   // no buffer: the frame is lost
        memcpy(buffers[free_index].memory, picture, frame_bytes);
        struct v4l2_buffer *b = &buffers[free_index].filled_info;
        memset(b, 0, sizeof *b);
        b->index = free_index;
        b->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        b->memory = V4L2_MEMORY_MMAP;
        b->bytesused = frame_bytes;
        b->length = buffers[free_index].length;
        b->field = V4L2_FIELD_NONE;
        b->sequence = seq;
        b->flags = V4L2_BUF_FLAG_DONE | V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC;
        b->timestamp.tv_sec = at / 1000000000ull;
        b->timestamp.tv_usec = (at % 1000000000ull) / 1000;
        buffers[free_index].filled = 1;
        fill_order[(filled_head + filled_count) % MAX_BUFFERS] = free_index;
        filled_count++;
    }
}

static long fake_ioctl(unsigned long request, void *arg) {
    int error;
    if (getenv("SLV_FAKE_TRACE")) fprintf(stderr, "fake_v4l2: ioctl 0x%lx\n", request);
    switch (request) {
    case VIDIOC_QUERYCAP: {
        struct v4l2_capability *cap = arg;
        memset(cap, 0, sizeof *cap);
        strcpy((char *)cap->driver, "fakecam");
        strcpy((char *)cap->card, "Sightline Test Camera");
        strcpy((char *)cap->bus_info, "platform:fakecam");
        cap->version = 0x060100;
        cap->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING;
        cap->capabilities = cap->device_caps | V4L2_CAP_DEVICE_CAPS;
        return 0;
    }
    case VIDIOC_ENUM_FMT: {
        struct v4l2_fmtdesc *d = arg;
        if (d->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || d->index != 0) return fail(EINVAL);
        memset(d->description, 0, sizeof d->description);
        strcpy((char *)d->description, "YUYV 4:2:2");
        d->pixelformat = V4L2_PIX_FMT_YUYV;
        d->flags = 0;
        return 0;
    }
    case VIDIOC_ENUM_FRAMESIZES: {
        struct v4l2_frmsizeenum *s = arg;
        if (s->pixel_format != V4L2_PIX_FMT_YUYV || s->index != 0) return fail(EINVAL);
        s->type = V4L2_FRMSIZE_TYPE_DISCRETE;
        s->discrete.width = width;
        s->discrete.height = height;
        return 0;
    }
    case VIDIOC_ENUM_FRAMEINTERVALS: {
        struct v4l2_frmivalenum *i = arg;
        if (i->pixel_format != V4L2_PIX_FMT_YUYV || i->index != 0 || (int)i->width != width || (int)i->height != height)
            return fail(EINVAL);
        i->type = V4L2_FRMIVAL_TYPE_DISCRETE;
        i->discrete.numerator = 1;
        i->discrete.denominator = fps;
        return 0;
    }
    case VIDIOC_G_FMT:
    case VIDIOC_TRY_FMT:
    case VIDIOC_S_FMT: {
        struct v4l2_format *f = arg;
        if (f->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return fail(EINVAL);
        if (request == VIDIOC_S_FMT && (error = injected("S_FMT"))) return fail(error);
        if (request == VIDIOC_S_FMT && buffer_count > 0) return fail(EBUSY);
        fill_format(f);   // one size and format: whatever is asked, this is what the camera gives
        return 0;
    }
    case VIDIOC_G_PARM:
    case VIDIOC_S_PARM: {
        struct v4l2_streamparm *p = arg;
        if (p->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return fail(EINVAL);
        memset(&p->parm.capture, 0, sizeof p->parm.capture);
        p->parm.capture.capability = V4L2_CAP_TIMEPERFRAME;
        p->parm.capture.timeperframe.numerator = 1;
        p->parm.capture.timeperframe.denominator = fps;
        p->parm.capture.readbuffers = 0;
        return 0;
    }
    case VIDIOC_ENUMINPUT: {
        struct v4l2_input *in = arg;
        if (in->index != 0) return fail(EINVAL);
        memset(in, 0, sizeof *in);   // status 0: not flipped (libv4l2 turns flagged pictures)
        strcpy((char *)in->name, "Camera 1");
        in->type = V4L2_INPUT_TYPE_CAMERA;
        return 0;
    }
    case VIDIOC_G_INPUT: *(int *)arg = 0; return 0;
    case VIDIOC_S_INPUT: return *(int *)arg == 0 ? 0 : fail(EINVAL);
    case VIDIOC_REQBUFS: {
        struct v4l2_requestbuffers *r = arg;
        if (r->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || r->memory != V4L2_MEMORY_MMAP) return fail(EINVAL);
        if (streaming) return fail(EBUSY);
        free_buffers();
        int count = r->count > MAX_BUFFERS ? MAX_BUFFERS : (int)r->count;
        if (count > 0 && count < 2) count = 2;
        size_t length = (frame_bytes + 4095) & ~(size_t)4095;
        for (int i = 0; i < count; i++) {
            void *m = (void *)real_syscall(SYS_mmap, 0, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (m == MAP_FAILED) { free_buffers(); return fail(ENOMEM); }
            buffers[i].memory = m;
            buffers[i].length = length;
            buffer_count = i + 1;
        }
        r->count = count;
        r->capabilities = V4L2_BUF_CAP_SUPPORTS_MMAP;
        return 0;
    }
    case VIDIOC_QUERYBUF:
    case VIDIOC_QBUF: {
        struct v4l2_buffer *b = arg;
        if (b->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || b->index >= (unsigned)buffer_count) return fail(EINVAL);
        if (request == VIDIOC_QBUF) {
            if (buffers[b->index].queued) return fail(EINVAL);
            buffers[b->index].queued = 1;
            buffers[b->index].filled = 0;
        }
        b->memory = V4L2_MEMORY_MMAP;
        b->length = buffers[b->index].length;
        b->m.offset = b->index * buffers[b->index].length;
        b->flags = buffers[b->index].queued ? V4L2_BUF_FLAG_QUEUED : 0;
        return 0;
    }
    case VIDIOC_DQBUF: {
        struct v4l2_buffer *b = arg;
        if (!streaming) return fail(EINVAL);
        if ((error = injected("DQBUF"))) return fail(error);
        for (;;) {
            uint64_t now = now_ns();
            deliver_arrivals(now);
            if (filled_count > 0) break;
            uint64_t period = 1000000000ull / fps;
            uint64_t wait = stream_start_ns + next_arrival * period - now;
            struct timespec ts = {(time_t)(wait / 1000000000ull), (long)(wait % 1000000000ull)};
            pthread_mutex_unlock(&lock);
            nanosleep(&ts, NULL);
            pthread_mutex_lock(&lock);
            if (!streaming) return fail(EINVAL);
        }
        int index = fill_order[filled_head];
        filled_head = (filled_head + 1) % MAX_BUFFERS;
        filled_count--;
        *b = buffers[index].filled_info;
        b->m.offset = index * buffers[index].length;
        buffers[index].queued = 0;
        buffers[index].filled = 0;
        return 0;
    }
    case VIDIOC_STREAMON:
        if ((error = injected("STREAMON"))) return fail(error);
        if (buffer_count == 0) return fail(EINVAL);
        streaming = 1;
        stream_start_ns = now_ns();
        next_arrival = 0;
        return 0;
    case VIDIOC_STREAMOFF:
        streaming = 0;
        for (int i = 0; i < buffer_count; i++) buffers[i].queued = buffers[i].filled = 0;
        filled_head = filled_count = 0;
        return 0;
    default:
        return fail(ENOTTY);   // controls, standards, …: not a feature of this camera
    }
}

long syscall(long number, ...) {
    va_list ap;
    va_start(ap, number);
    long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long);
    long d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);
    va_end(ap);
    const char *device = getenv("SLV_FAKE_DEVICE");
    long result;
    int error;

    pthread_mutex_lock(&lock);
    switch (number) {
    case SYS_openat:
        if (!device || strcmp((const char *)b, device) != 0) goto pass;
        if ((error = injected("open"))) { result = fail(error); break; }
        if (fake_fd >= 0) { result = fail(EBUSY); break; }
        if (load_configuration() != 0) { result = fail(EIO); break; }
        // A real descriptor stands in for the device node, so close() and fstat() keep working.
        result = real_syscall(SYS_openat, AT_FDCWD, (long)"/dev/null", O_RDWR | O_CLOEXEC, 0, 0, 0);
        if (result >= 0) fake_fd = (int)result;
        sequence = 0;
        break;
    case SYS_ioctl:
        if (fake_fd < 0 || a != fake_fd) goto pass;
        result = fake_ioctl((unsigned long)b, (void *)c);
        break;
    case SYS_mmap:
        if (fake_fd < 0 || e != fake_fd) goto pass;
        result = fail(EINVAL);
        for (int i = 0; i < buffer_count; i++)
            if ((long)(i * buffers[i].length) == f && (size_t)b <= buffers[i].length) { result = (long)buffers[i].memory; break; }
        break;
    case SYS_munmap:
        for (int i = 0; i < buffer_count; i++)
            if ((long)buffers[i].memory == a) { result = 0; goto done; }   // stays mapped until REQBUFS 0 or close
        goto pass;
    case SYS_close:
        if (fake_fd < 0 || a != fake_fd) goto pass;
        streaming = 0;
        free_buffers();
        fake_fd = -1;
        goto pass;
    default:
    pass:
        pthread_mutex_unlock(&lock);
        return real_syscall(number, a, b, c, d, e, f);
    }
done:
    pthread_mutex_unlock(&lock);
    return result;
}
